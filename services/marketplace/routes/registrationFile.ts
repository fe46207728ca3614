import type { Hex } from "viem";
import { CARD_PROTOCOL_VERSION, CHAIN_ID } from "../../protocol/constants.ts";
import type { MarketplaceContext } from "../marketplaceContext.ts";
import { cardUrlOf } from "../marketplaceContext.ts";
import { findRegistration } from "../store/registrations.ts";

/** The ERC-8004 registration file type. */
export const REGISTRATION_TYPE = "https://eips.ethereum.org/EIPS/eip-8004#registration-v1";

/**
 * The ERC-8004 registration file of an identity the marketplace minted (its `agentURI`): name, description, the A2A
 * card as a service, x402 support, whether the resource is listed and active, and the on-chain registration.
 * Undefined for an id the marketplace never minted for.
 * @example const file = await registrationFile(ctx, resourceId)
 */
export async function registrationFile(ctx: MarketplaceContext, rawId: string) {
  if (!/^0x[0-9a-fA-F]{64}$/.test(rawId)) return undefined;
  const resourceId = rawId.toLowerCase() as Hex;
  const registration = await findRegistration(ctx.store, resourceId);
  if (!registration) return undefined;
  const entry = ctx.catalog.get(resourceId);
  const agentId = BigInt(registration.agentId);
  return {
    type: REGISTRATION_TYPE,
    name: registration.name,
    description: registration.description,
    services: [{ name: "A2A", endpoint: cardUrlOf(ctx.publicUrl(), resourceId), version: CARD_PROTOCOL_VERSION }],
    x402Support: true,
    active: Boolean(entry?.listed && entry.chain?.active && entry.chain.agentId === agentId),
    registrations: [
      {
        agentId: agentId <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(agentId) : agentId.toString(),
        agentRegistry: `eip155:${CHAIN_ID}:${ctx.chain.addresses.identity}`,
      },
    ],
  };
}
