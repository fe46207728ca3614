import type { Address, Hex } from "viem";
import { getAddress } from "viem";
import type { Sql } from "../../store/store.ts";
import type { MarketplaceChain } from "../chain.ts";
import { findRegistration, saveRegistration } from "../store/registrations.ts";

export type MintIdentityParameters = {
  chain: MarketplaceChain;
  store: Sql;
  resourceId: Hex;
  creator: Address;
  name: string;
  description: string;
  /** The registration file's URL, which the marketplace serves. */
  agentURI: string;
};

/**
 * The mint stage: registers an ERC-8004 identity whose URI is the marketplace's registration file, then hands it to
 * the creator (the registry binds only an identity the creator owns). An identity minted by an earlier attempt that
 * failed later, and is still unbound, is reused instead of minting another.
 * @example const { agentId } = await mintIdentity({ chain, store, resourceId, creator, name, description, agentURI })
 */
export async function mintIdentity(
  p: MintIdentityParameters,
): Promise<{ agentId: bigint; transaction: Hex; reused: boolean }> {
  const creator = getAddress(p.creator);
  const earlier = await findRegistration(p.store, p.resourceId);
  if (earlier) {
    const agentId = BigInt(earlier.agentId);
    const [owner, bound] = await Promise.all([p.chain.ownerOf(agentId), p.chain.resourceOfAgent(agentId)]);
    const unbound = /^0x0{64}$/.test(bound);
    if (unbound && owner !== undefined && (owner === creator || owner === p.chain.operator)) {
      if (owner === p.chain.operator) await p.chain.transferIdentity(agentId, creator);
      await saveRegistration(p.store, { ...earlier, creator, name: p.name, description: p.description });
      return { agentId, transaction: earlier.mintedTx, reused: true };
    }
  }
  const { agentId, transaction } = await p.chain.mintIdentity(p.agentURI);
  await saveRegistration(p.store, {
    resourceId: p.resourceId,
    agentId: agentId.toString(),
    creator,
    name: p.name,
    description: p.description,
    mintedTx: transaction,
  });
  await p.chain.transferIdentity(agentId, creator);
  return { agentId, transaction, reused: false };
}
