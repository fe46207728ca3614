import type { Address } from "viem";
import {
  CARD_PROTOCOL_VERSION,
  CHAIN_ID,
  NETWORK,
  PLACEHOLDER_AGENT_ID,
  PLACEHOLDER_CALL_URL,
  PLACEHOLDER_RESOURCE_ID,
  SCHEME_ESCROW,
} from "./constants.ts";

/**
 * A card template (placeholders in `url`, `x402.payTo`, `identity.agentId`) for our escrow and stablecoin, as a
 * creator publishes it; the host fills in the url and payTo, the marketplace the agent id.
 * @example const template = cardTemplate(contracts, { name: "echo", description: "Echoes", pricing })
 */
export function cardTemplate(
  addresses: { token: Address; escrow: Address },
  o: { name: string; description: string; pricing: { base: string; perKB: string; max: string }; tags?: string[] },
) {
  return {
    protocolVersion: CARD_PROTOCOL_VERSION,
    name: o.name,
    description: o.description,
    url: PLACEHOLDER_CALL_URL,
    version: "1.0.0",
    capabilities: { streaming: false },
    defaultInputModes: ["application/json"],
    defaultOutputModes: ["application/json"],
    skills: [
      {
        id: "main",
        name: o.name,
        description: o.description,
        tags: o.tags ?? ["tools"],
        inputModes: ["application/json"],
        outputModes: ["application/json"],
      },
    ],
    x402: {
      scheme: SCHEME_ESCROW,
      network: NETWORK,
      chainId: CHAIN_ID,
      asset: addresses.token,
      escrow: addresses.escrow,
      pricing: { model: "metered", ...o.pricing },
      payTo: PLACEHOLDER_RESOURCE_ID,
    },
    cache: { ttlSeconds: 300 },
    identity: { standard: "erc-8004", chainId: CHAIN_ID, agentId: PLACEHOLDER_AGENT_ID },
    health: { verified: true, score: 100 },
    bond: { posted: "0" },
  };
}
