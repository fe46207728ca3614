import type { Address, Hex, LocalAccount } from "viem";
import { bondNonce } from "../../services/protocol/bondNonce.ts";
import type { cardTemplate } from "../../services/protocol/cardTemplate.ts";
import { resourceIdOf } from "../../services/protocol/resourceId.ts";
import { bondTypedData, registerResourceTypedData } from "../../services/protocol/typedData.ts";
import type { FakeResourceState } from "./fakeResource.ts";

/** Contract addresses a publish request is signed against. */
export type PublishAddresses = { token: Address; escrow: Address; registry: Address };

/**
 * What a correctly deployed resource serves for `template`: url and payTo filled, agentId still a placeholder.
 * @example startFakeResource((url) => servedState(template, url, resourceId, addresses))
 */
export function servedState(
  template: ReturnType<typeof cardTemplate>,
  url: string,
  resourceId: Hex,
  addresses: PublishAddresses,
): FakeResourceState {
  const p = template.x402.pricing;
  return {
    card: { ...template, url: `${url}/call`, x402: { ...template.x402, payTo: resourceId } },
    quote: {
      cap: p.max,
      escrow: addresses.escrow,
      asset: addresses.token,
      payTo: resourceId,
      base: p.base,
      perKB: p.perKB,
    },
    healthStatus: 200,
    callStatus: 402,
  };
}

export type BuildPublishRequestParameters = {
  creator: LocalAccount;
  addresses: PublishAddresses;
  slug: string;
  resourceUrl: string;
  template: ReturnType<typeof cardTemplate>;
  category?: string;
  payout?: Address;
  bondValue?: bigint | null;
  now?: number;
};

/**
 * A publish request with the creator's signatures: `RegisterResource` consent and a bond `ReceiveWithAuthorization`
 * of `bondValue` (none when null).
 * @example const { request, resourceId } = await buildPublishRequest({ creator, addresses, slug, resourceUrl, template })
 */
export async function buildPublishRequest(p: BuildPublishRequestParameters) {
  const now = p.now ?? Math.floor(Date.now() / 1000);
  const pricing = {
    base: p.template.x402.pricing.base,
    perKB: p.template.x402.pricing.perKB,
    max: p.template.x402.pricing.max,
  };
  const category = p.category ?? "tools";
  const payout = p.payout ?? p.creator.address;
  const deadline = String(now + 3_600);
  const signature = await p.creator.signTypedData(
    registerResourceTypedData(
      { creator: p.creator.address, slug: p.slug, payout, category, ...pricing, deadline },
      p.addresses.registry,
    ),
  );
  const bondValue = p.bondValue === undefined ? 2_000_000n : p.bondValue;
  let bond: Record<string, string> | undefined;
  if (bondValue !== null) {
    const authorization = {
      from: p.creator.address,
      value: bondValue.toString(),
      validAfter: "0",
      validBefore: String(now + 3_600),
      nonce: bondNonce(resourceIdOf(p.creator.address, p.slug)),
    };
    const bondSignature = await p.creator.signTypedData(
      bondTypedData(authorization, p.addresses.registry, p.addresses.token),
    );
    bond = {
      value: authorization.value,
      validAfter: authorization.validAfter,
      validBefore: authorization.validBefore,
      nonce: authorization.nonce,
      signature: bondSignature,
    };
  }
  const request = {
    resourceUrl: p.resourceUrl,
    creator: p.creator.address,
    slug: p.slug,
    category,
    payout,
    pricing,
    card: p.template,
    sampleRequest: { text: "hello" },
    registration: { deadline, signature },
    ...(bond ? { bond } : {}),
  };
  return { request, resourceId: resourceIdOf(p.creator.address, p.slug) };
}
