import type { Address, Hex, LocalAccount } from "viem";
import { SAMPLE_NAMES, sampleDeployment } from "../host/samples/sampleDeployment.ts";
import { bondNonce } from "../protocol/bondNonce.ts";
import { resourceIdOf } from "../protocol/resourceId.ts";
import { bondTypedData, registerResourceTypedData } from "../protocol/typedData.ts";

/** A sample handler as published: what scripts and tests need to call it. */
export type PublishedResource = {
  slug: string;
  resourceId: Hex;
  agentId: string;
  resourceUrl: string;
  cardUrl: string;
};

export type PublishSamplesParameters = {
  creator: LocalAccount;
  hostUrl: string;
  hostToken: string;
  marketplaceUrl: string;
  publishToken: string;
  contracts: { token: Address; escrow: Address; registry: Address };
  /** The bond each sample posts from the creator's own signed authorization (base units). */
  bond: bigint;
  say: (line: string) => void;
};

async function post(url: string, body: unknown, token: string) {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
    body: JSON.stringify(body),
  });
  const json = (await response.json().catch(() => ({}))) as Record<string, unknown>;
  if (!response.ok) throw new Error(`${url} answered ${response.status}: ${JSON.stringify(json)}`);
  return json;
}

/**
 * Deploys every sample handler on the host and lists it through the marketplace's real publish pipeline
 * (moderation, price, bond, probe, mint, index), with the creator's own signatures for registration and bond, then
 * finalizes the card's agent id on the host.
 * @example const resources = await publishSamples({ creator, hostUrl, hostToken, marketplaceUrl, publishToken, contracts, bond, say })
 */
export async function publishSamples(p: PublishSamplesParameters): Promise<PublishedResource[]> {
  const published: PublishedResource[] = [];
  for (const name of SAMPLE_NAMES) {
    const deployment = sampleDeployment(name, {
      creator: p.creator.address,
      asset: p.contracts.token,
      escrow: p.contracts.escrow,
    });
    await post(`${p.hostUrl}/deployments`, deployment, p.hostToken);
    const resourceUrl = `${p.hostUrl}/r/${name}`;
    const pricing = { base: deployment.pricing.base, perKB: deployment.pricing.perKB, max: deployment.pricing.max };
    const deadline = String(Math.floor(Date.now() / 1000) + 3_600);
    const bond = {
      from: p.creator.address,
      value: p.bond.toString(),
      validAfter: "0",
      validBefore: deadline,
      nonce: bondNonce(resourceIdOf(p.creator.address, name)),
    };
    const registration = {
      creator: p.creator.address,
      slug: name,
      payout: p.creator.address,
      category: "tools",
      ...pricing,
      deadline,
    };
    const result = await post(
      `${p.marketplaceUrl}/resources`,
      {
        resourceUrl,
        creator: p.creator.address,
        slug: name,
        category: "tools",
        payout: p.creator.address,
        pricing,
        card: deployment.card,
        sampleRequest: deployment.sampleRequest,
        registration: {
          deadline,
          signature: await p.creator.signTypedData(registerResourceTypedData(registration, p.contracts.registry)),
        },
        bond: {
          value: bond.value,
          validAfter: bond.validAfter,
          validBefore: bond.validBefore,
          nonce: bond.nonce,
          signature: await p.creator.signTypedData(bondTypedData(bond, p.contracts.registry, p.contracts.token)),
        },
      },
      p.publishToken,
    );
    await post(`${p.hostUrl}/deployments/${name}/identity`, { agentId: result.agentId }, p.hostToken);
    const stages = (result.stages as { stage: string; ms: number }[])
      .map((s) => `${s.stage} ${Math.round(s.ms)}ms`)
      .join(", ");
    p.say(`published ${name} (${stages})`);
    published.push({
      slug: name,
      resourceId: result.resourceId as Hex,
      agentId: String(result.agentId),
      resourceUrl,
      cardUrl: String(result.cardUrl),
    });
  }
  return published;
}
