import { compileSchema } from "../gate/compileSchema.ts";
import { resolveGateConfig } from "../gate/resolveGateConfig.ts";
import { PLACEHOLDER_AGENT_ID, PLACEHOLDER_CALL_URL, PLACEHOLDER_RESOURCE_ID } from "../protocol/constants.ts";
import { resourceIdOf } from "../protocol/resourceId.ts";
import type { Deployment } from "./createDeploymentStore.ts";
import type { DeploymentRequest } from "./deploymentSchema.ts";
import { privateNetworkEntry } from "./deploymentSchema.ts";
import { gateConfigOf } from "./gateConfigOf.ts";
import type { HostContext } from "./hostContext.ts";
import { resourceUrls } from "./hostContext.ts";
import { servedCard } from "./servedCard.ts";

/** A deploy request turned into a deployment, or why it is refused (400). */
export type PrepareDeploymentReturnType = { ok: true; deployment: Deployment } | { ok: false; message: string };

/**
 * Checks a deploy request against the host's trusted configuration before anything runs: the card's payment terms
 * must be the deployment's pricing, the host's escrow and token; its url and payTo must be placeholders or the live
 * values; the schemas must compile; the network allow-list must stay public (unless the host allows otherwise).
 * Keeps the agent id of an earlier deployment of the same slug.
 * @example const prepared = prepareDeployment(ctx, request, existing)
 */
export function prepareDeployment(
  ctx: HostContext,
  request: DeploymentRequest,
  existing: Deployment | undefined,
): PrepareDeploymentReturnType {
  const resourceId = resourceIdOf(request.creator, request.slug);
  const { callUrl } = resourceUrls(ctx, request.slug);
  const x402 = request.card.x402;
  const problems: [boolean, string][] = [
    [x402.asset === ctx.config.TOKEN_ADDRESS, `card.x402.asset must be the stablecoin ${ctx.config.TOKEN_ADDRESS}`],
    [x402.escrow === ctx.config.ESCROW_ADDRESS, `card.x402.escrow must be the escrow ${ctx.config.ESCROW_ADDRESS}`],
    [
      (["model", "base", "perKB", "max"] as const).every((k) => x402.pricing[k] === request.pricing[k]),
      "card.x402.pricing must equal pricing",
    ],
    [
      request.card.url === PLACEHOLDER_CALL_URL || request.card.url === callUrl,
      `card.url must be ${PLACEHOLDER_CALL_URL} or ${callUrl}`,
    ],
    [
      x402.payTo === PLACEHOLDER_RESOURCE_ID || x402.payTo === resourceId,
      `card.x402.payTo must be ${PLACEHOLDER_RESOURCE_ID} or ${resourceId}`,
    ],
  ];
  const failed = problems.find(([ok]) => !ok);
  if (failed) return { ok: false, message: failed[1] };
  const blocked = ctx.config.SANDBOX_ALLOW_PRIVATE_NETWORK
    ? undefined
    : privateNetworkEntry(request.allowNetwork ?? []);
  if (blocked)
    return { ok: false, message: `allowNetwork: ${blocked} reaches loopback, private or link-local addresses` };

  const now = new Date().toISOString();
  const templateAgentId = request.card.identity.agentId === PLACEHOLDER_AGENT_ID ? null : request.card.identity.agentId;
  const deployment: Deployment = {
    ...request,
    resourceId,
    agentId: existing?.agentId ?? templateAgentId,
    deployedAt: existing?.deployedAt ?? now,
    updatedAt: now,
  };
  try {
    const card = servedCard(deployment, callUrl);
    resolveGateConfig(
      gateConfigOf(
        ctx,
        deployment,
        async () => ({ status: 500, contentType: undefined, body: Buffer.alloc(0) }),
        () => card,
      ),
    );
    compileSchema(request.requestSchema, "requestSchema");
    compileSchema(request.responseSchema, "responseSchema");
  } catch (error) {
    return { ok: false, message: (error as Error).message.replace(/^invalid gate configuration: /, "") };
  }
  return { ok: true, deployment };
}
