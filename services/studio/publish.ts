import type { Address, Hex } from "viem";
import { parseUnits } from "viem";
import { abiOf } from "../protocol/artifacts.ts";
import { bondNonce } from "../protocol/bondNonce.ts";
import { resourceIdOf } from "../protocol/resourceId.ts";
import { bondTypedData, registerResourceTypedData } from "../protocol/typedData.ts";
import type { EndpointContract } from "./contract.ts";
import type { Creator, TypedDataToSign } from "./creator.ts";
import type { Deployed } from "./deploy.ts";
import { cardOf } from "./deploy.ts";
import { errorText, requestJson } from "./requestJson.ts";
import { StudioError } from "./studioError.ts";
import type { StudioTarget } from "./studioTarget.ts";
import { studioChainClient } from "./studioTarget.ts";

/** The bond the studio asks the creator to post by default (1 unit of the stablecoin, 6 decimals). */
export const DEFAULT_BOND = parseUnits("1", 6);

/** How long the creator's signatures stay valid (seconds). */
export const SIGNATURE_LIFETIME_SECONDS = 3_600;

/** What the creator signs to publish: `RegisterResource` consent and the bond's `ReceiveWithAuthorization`. */
export type PublishTerms = {
  deadline: string;
  bond: { value: string; validAfter: string; validBefore: string; nonce: Hex };
  typedData: { registration: TypedDataToSign; bond: TypedDataToSign };
};

/** The creator's two signatures over `PublishTerms`. */
export type PublishSignatures = { registration: Hex; bond: Hex };

/** A listed resource: its agent id, the marketplace's card URL, the pipeline's stages and the transactions. */
export type Published = {
  agentId: string;
  cardUrl: string;
  stages: { stage: string; ok: boolean; ms: number }[];
  transactions: { register?: Hex };
};

/**
 * The typed data a creator signs to publish a contract: the registration (slug, payout = creator, category, pricing,
 * deadline) under the registry's domain, and the bond authorization to the registry under the stablecoin's domain.
 * @example const terms = publishTerms({ contract, target, creator: address }); await sign(terms.typedData.registration)
 */
export function publishTerms(p: {
  contract: EndpointContract;
  target: StudioTarget;
  creator: Address;
  bond?: bigint;
  now?: number;
}): PublishTerms {
  const now = p.now ?? Math.floor(Date.now() / 1000);
  const deadline = String(now + SIGNATURE_LIFETIME_SECONDS);
  const bond = {
    value: (p.bond ?? DEFAULT_BOND).toString(),
    validAfter: "0",
    validBefore: deadline,
    nonce: bondNonce(resourceIdOf(p.creator, p.contract.slug)),
  };
  const { registry, token } = p.target.contracts;
  return {
    deadline,
    bond,
    typedData: {
      registration: registerResourceTypedData(
        {
          creator: p.creator,
          slug: p.contract.slug,
          payout: p.creator,
          category: p.contract.category,
          ...p.contract.price,
          deadline,
        },
        registry,
      ) as TypedDataToSign,
      bond: bondTypedData({ from: p.creator, ...bond }, registry, token) as TypedDataToSign,
    },
  };
}

/**
 * Signs the publish terms with a creator that holds its key (the CLI's local creator).
 * @example const signatures = await signTerms(creator, terms)
 */
export async function signTerms(creator: Creator, terms: PublishTerms): Promise<PublishSignatures> {
  return {
    registration: await creator.signTypedData(terms.typedData.registration),
    bond: await creator.signTypedData(terms.typedData.bond),
  };
}

async function registrationTransaction(target: StudioTarget, resourceId: Hex): Promise<Hex | undefined> {
  const client = studioChainClient(target.rpcUrl);
  const logs = await client.getContractEvents({
    address: target.contracts.registry,
    abi: abiOf("ResourceRegistry"),
    eventName: "ResourceRegistered",
    args: { resourceId },
    fromBlock: 0n,
  });
  return logs.at(-1)?.transactionHash ?? undefined;
}

/**
 * Stage 6: lists a deployed handler through the marketplace's pipeline (`POST /resources`: moderation, bond, probe,
 * mint, index) with the creator's signatures, then finalizes the card's agent id on the host. The studio holds no
 * creator key: it only forwards the signatures.
 * @throws {StudioError} stage `publish`: `publish_refused` (the stage that refused in the message),
 * `marketplace_unreachable`, or `identity_failed`.
 * @example const published = await publish({ contract, deployed, target, creator, terms, signatures })
 */
export async function publish(p: {
  contract: EndpointContract;
  deployed: Deployed;
  target: StudioTarget;
  creator: Address;
  terms: PublishTerms;
  signatures: PublishSignatures;
}): Promise<Published> {
  const request = {
    resourceUrl: p.deployed.resourceUrl,
    creator: p.creator,
    slug: p.contract.slug,
    category: p.contract.category,
    payout: p.creator,
    pricing: p.contract.price,
    card: cardOf(p.contract, p.target),
    sampleRequest: p.contract.examples[0]?.input ?? {},
    registration: { deadline: p.terms.deadline, signature: p.signatures.registration },
    bond: { ...p.terms.bond, signature: p.signatures.bond },
  };
  let answer: Awaited<ReturnType<typeof requestJson>>;
  try {
    answer = await requestJson("POST", `${p.target.marketplaceUrl}/resources`, request, p.target.publishToken, 120_000);
  } catch (error) {
    throw new StudioError(
      "publish",
      "marketplace_unreachable",
      `the marketplace did not answer: ${(error as Error).message}`,
    );
  }
  if (answer.status !== 201 || !answer.body)
    throw new StudioError("publish", "publish_refused", `the marketplace refused the listing: ${errorText(answer)}`);
  const agentId = String(answer.body.agentId);
  const identity = await requestJson(
    "POST",
    `${p.target.hostUrl}/deployments/${p.contract.slug}/identity`,
    { agentId },
    p.target.hostToken,
  );
  if (identity.status !== 200)
    throw new StudioError("publish", "identity_failed", `the host did not finalize the card: ${errorText(identity)}`);
  return {
    agentId,
    cardUrl: String(answer.body.cardUrl),
    stages: (answer.body.stages as Published["stages"]) ?? [],
    transactions: { register: await registrationTransaction(p.target, p.deployed.resourceId) },
  };
}

/**
 * The undo of `publish`: if the resource is registered on chain and active, the creator deactivates it (its own
 * transaction); a resource never registered needs nothing.
 * @throws {Error} when the resource is active and the creator cannot deactivate it here.
 * @example await unpublish(target, creator, resourceId)
 */
export async function unpublish(target: StudioTarget, creator: Creator, resourceId: Hex): Promise<Hex | undefined> {
  const client = studioChainClient(target.rpcUrl);
  const [, active] = await client.readContract({
    address: target.contracts.registry,
    abi: abiOf("ResourceRegistry"),
    functionName: "paymentTarget",
    args: [resourceId],
  });
  if (!active) return undefined;
  if (!creator.deactivate)
    throw new Error(`resource ${resourceId} is registered and active; its creator must call deactivate(${resourceId})`);
  return creator.deactivate(resourceId);
}
