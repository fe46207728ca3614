import type { Address } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import type { z } from "zod";
import {
  CARD_PROTOCOL_VERSION,
  CHAIN_ID,
  NETWORK,
  PLACEHOLDER_AGENT_ID,
  PLACEHOLDER_CALL_URL,
  PLACEHOLDER_RESOURCE_ID,
  SCHEME_ESCROW,
} from "../../services/protocol/constants.ts";
import { resourceIdOf } from "../../services/protocol/resourceId.ts";
import type { cardSchema, cardTemplateSchema } from "../../services/protocol/schemas/card.ts";
import type { indexRecordSchema } from "../../services/protocol/schemas/indexRecord.ts";
import type { EscrowAuthorization, ExactAuthorization } from "../../services/protocol/schemas/paymentPayload.ts";
import type { receiptSchema } from "../../services/protocol/schemas/receipt.ts";

/** A well-known development key (Hardhat account #0); never holds real funds. */
export const buyerKey = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";

/** The account of {@link buyerKey}. */
export const buyer = privateKeyToAccount(buyerKey);

/** A creator address, checksummed. */
export const creator: Address = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";

/** A PaymentEscrow address, checksummed. */
export const escrow: Address = "0x5FbDB2315678afecb367f032d93F642f64180aa3";

/** A stablecoin address, checksummed. */
export const asset: Address = "0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512";

/** The resource id of `creator`'s `weather` slug. */
export const resourceId = resourceIdOf(creator, "weather");

/** A fixed nonce. */
export const nonce = `0x${"ab".repeat(32)}` as const;

/** A syntactically valid 65-byte signature. */
export const signature = `0x${"11".repeat(65)}` as const;

/** A valid finalized agent card. */
export function validCard(): z.input<typeof cardSchema> {
  return {
    protocolVersion: CARD_PROTOCOL_VERSION,
    name: "Weather",
    description: "Current weather for a city.",
    url: "https://weather.example/call",
    version: "1.0.0",
    capabilities: { streaming: false },
    defaultInputModes: ["application/json"],
    defaultOutputModes: ["application/json"],
    skills: [
      {
        id: "weather",
        name: "Weather",
        description: "Returns the weather.",
        tags: ["weather"],
        inputModes: ["application/json"],
        outputModes: ["application/json"],
      },
    ],
    x402: {
      scheme: SCHEME_ESCROW,
      network: NETWORK,
      chainId: CHAIN_ID,
      asset,
      escrow,
      pricing: { model: "metered", base: "1000", perKB: "200", max: "50000" },
      payTo: resourceId,
    },
    cache: { ttlSeconds: 300 },
    identity: { standard: "erc-8004", chainId: CHAIN_ID, agentId: "7" },
    health: { verified: true, score: 97.5 },
    bond: { posted: "1000000" },
  };
}

/** A valid generated card, still holding its three placeholders. */
export function validCardTemplate(): z.input<typeof cardTemplateSchema> {
  const card = validCard();
  return {
    ...card,
    url: PLACEHOLDER_CALL_URL,
    x402: { ...card.x402, payTo: PLACEHOLDER_RESOURCE_ID },
    identity: { ...card.identity, agentId: PLACEHOLDER_AGENT_ID },
  };
}

/** A valid index record. */
export function validIndexRecord(): z.input<typeof indexRecordSchema> {
  return {
    resourceId,
    creator,
    agentId: "7",
    slug: "weather",
    category: "data",
    pricing: { model: "metered", base: "1000", perKB: "200", max: "50000" },
    reputation: 90,
    uptime: 99.9,
    health: { verified: true, score: 97.5 },
    bond: "0",
    cardUrl: `https://market.example/${resourceId}/.well-known/agent-card.json`,
    active: true,
  };
}

/** A valid escrow debit authorization in wire form. */
export function validEscrowAuthorization(): EscrowAuthorization {
  return { buyer: buyer.address, resourceId, maxAmount: "50000", validAfter: "0", validBefore: "1795355000", nonce };
}

/** A valid EIP-3009 authorization in wire form. */
export function validExactAuthorization(): ExactAuthorization {
  return { from: buyer.address, to: escrow, value: "50000", validAfter: "0", validBefore: "1795355000", nonce };
}

/** A valid receipt. */
export function validReceipt(): z.input<typeof receiptSchema> {
  return {
    success: true,
    scheme: SCHEME_ESCROW,
    network: NETWORK,
    transaction: `0x${"cd".repeat(32)}`,
    payer: buyer.address,
    payTo: resourceId,
    idemKey: nonce,
    amount: "1200",
    creatorAmount: "1140",
    treasuryAmount: "60",
    settledAt: "2026-01-01T00:00:00.000Z",
  };
}

type Node = Record<string | number, unknown>;

function parentOf(root: unknown, path: readonly (string | number)[]): [Node, string | number] {
  let parent = root as Node;
  for (const key of path.slice(0, -1)) parent = parent[key] as Node;
  return [parent, path[path.length - 1] as string | number];
}

/** A deep copy of `value` with the property at `path` set to `next` (added when missing). */
export function withValue<T>(value: T, path: readonly (string | number)[], next: unknown): T {
  const copy = structuredClone(value);
  const [parent, key] = parentOf(copy, path);
  parent[key] = next;
  return copy;
}

/** A deep copy of `value` without the property at `path`. */
export function without<T>(value: T, path: readonly (string | number)[]): T {
  const copy = structuredClone(value);
  const [parent, key] = parentOf(copy, path);
  delete parent[key];
  return copy;
}
