import type { Address, Hex } from "viem";
import { cardTemplate } from "../protocol/cardTemplate.ts";
import type { EndpointContract } from "./contract.ts";
import { errorText, requestJson } from "./requestJson.ts";
import { skillExamples } from "./skillExamples.ts";
import { StudioError } from "./studioError.ts";
import type { StudioTarget } from "./studioTarget.ts";

/** A handler live on the host (not yet listed). */
export type Deployed = { slug: string; resourceId: Hex; resourceUrl: string; callUrl: string; cardUrl: string };

/**
 * The card template of a contract for a target: placeholders `{{CALL_URL}}`, `{{RESOURCE_ID}}`, `{{AGENT_ID}}`,
 * the target's escrow and stablecoin, the contract's pricing, and the contract's examples (request and response) as the
 * skill's examples (`skillExamples`).
 * @example const card = cardOf(contract, target)
 */
export function cardOf(contract: EndpointContract, target: StudioTarget) {
  const template = cardTemplate(target.contracts, {
    name: contract.name,
    description: contract.description,
    pricing: contract.price,
    tags: contract.tags,
  });
  const [skill] = template.skills;
  const examples = skillExamples(contract.examples);
  return {
    ...template,
    skills: skill ? [{ ...skill, id: contract.slug, ...(examples.length > 0 ? { examples } : {}) }] : [],
  };
}

/** The `POST /deployments` body of a verified handler. */
export function deploymentOf(contract: EndpointContract, source: string, target: StudioTarget, creator: Address) {
  return {
    slug: contract.slug,
    creator,
    source,
    requestSchema: contract.requestSchema,
    responseSchema: contract.responseSchema,
    card: cardOf(contract, target),
    pricing: { model: "metered" as const, ...contract.price },
    computeMultiplier: 1,
    maxResponseBytes: contract.maxResponseBytes,
    // The request the gate reruns alone after a failed call: only a failure it reproduces is struck.
    sampleRequest: contract.examples[0]?.input ?? {},
  };
}

/**
 * Stage 5: deploys a verified handler on the host (`POST /deployments`, bearer) with its card template.
 * @throws {StudioError} stage `deploy`: `deploy_refused` (the host's answer in the message), `deploy_replaced` (the
 * host replaced this creator's earlier deployment of the slug, 200: not a new endpoint to verify and list), or
 * `host_unreachable`.
 * @example const deployed = await deploy({ contract, source, target, creator: creator.address })
 */
export async function deploy(p: {
  contract: EndpointContract;
  source: string;
  target: StudioTarget;
  creator: Address;
}): Promise<Deployed> {
  let answer: Awaited<ReturnType<typeof requestJson>>;
  try {
    answer = await requestJson(
      "POST",
      `${p.target.hostUrl}/deployments`,
      deploymentOf(p.contract, p.source, p.target, p.creator),
      p.target.hostToken,
    );
  } catch (error) {
    throw new StudioError("deploy", "host_unreachable", `the host did not answer: ${(error as Error).message}`);
  }
  if (answer.status === 200)
    throw new StudioError(
      "deploy",
      "deploy_replaced",
      `the host replaced the earlier deployment of ${p.contract.slug} by this creator with this handler (200); the studio only lists new endpoints`,
    );
  if (answer.status !== 201 || !answer.body)
    throw new StudioError("deploy", "deploy_refused", `the host refused the deployment: ${errorText(answer)}`);
  const body = answer.body;
  return {
    slug: String(body.slug),
    resourceId: body.resourceId as Hex,
    resourceUrl: String(body.resourceUrl),
    callUrl: String(body.callUrl),
    cardUrl: String(body.cardUrl),
  };
}

/**
 * The undo of `deploy`: removes the handler from the host (`DELETE /deployments/:slug`); a slug already gone is fine.
 * @example await undeploy(target, "sha-256-digest-1a2b3c")
 */
export async function undeploy(target: StudioTarget, slug: string): Promise<void> {
  const answer = await requestJson("DELETE", `${target.hostUrl}/deployments/${slug}`, undefined, target.hostToken);
  if (answer.status !== 200 && answer.status !== 404)
    throw new Error(`the host did not remove ${slug}: ${errorText(answer)}`);
}
