import type { Address, Hex, PublicClient } from "viem";
import { createPublicClient, getAddress, http } from "viem";
import { abiOf } from "../../../protocol/artifacts.ts";
import { serviceChain } from "../../../protocol/chain.ts";
import { CHAIN_ID, NETWORK, SCHEME_ESCROW } from "../../../protocol/constants.ts";
import { cardSchema } from "../../../protocol/schemas/card.ts";
import type { Quote } from "../../../protocol/schemas/quote.ts";

/** Terms a buyer signs: every money field re-derived from the chain and trusted constants, never from an index row. */
export type PinnedTerms = { resourceId: Hex; escrow: Address; asset: Address; cap: bigint; maxTimeoutSeconds: number };

/** The quote disagrees with the chain or with the buyer's trusted constants: nothing is signed. */
export class PinError extends Error {
  override name = "PinError";
}

export type BuyerChain = { publicClient: PublicClient; escrow: Address };

/**
 * The buyer's trusted view of the chain: the escrow address is a constant the buyer configures (for the test
 * network, published with the SDK); registry and asset are read from the escrow itself.
 * @example const chain = buyerChain({ rpcUrl, escrow })
 */
export function buyerChain({ rpcUrl, escrow }: { rpcUrl: string; escrow: Address }): BuyerChain {
  return {
    publicClient: createPublicClient({ chain: serviceChain(rpcUrl), transport: http(rpcUrl) }) as PublicClient,
    escrow: getAddress(escrow),
  };
}

/**
 * Checks a 402 quote's escrow entry against the chain before anything is signed: the escrow is the trusted one,
 * the asset is the escrow's token, the resource (payTo) is registered and active with exactly the quoted cap, and
 * the card the registry points to names this call URL and this resource.
 * @example const terms = await pinPaymentTerms(chain, quote, "http://127.0.0.1:4030/r/echo/call")
 */
export async function pinPaymentTerms(chain: BuyerChain, quote: Quote, callUrl: string): Promise<PinnedTerms> {
  const entry = quote.accepts.find((a) => a.scheme === SCHEME_ESCROW);
  if (!entry || entry.scheme !== SCHEME_ESCROW) throw new PinError("the quote has no service-escrow entry");
  if (entry.network !== NETWORK || entry.eip712Domain.chainId !== CHAIN_ID)
    throw new PinError(`the quote is for another network (${entry.network})`);
  if (getAddress(entry.escrow) !== chain.escrow || getAddress(entry.eip712Domain.verifyingContract) !== chain.escrow) {
    throw new PinError(`the quote names escrow ${entry.escrow}, not the trusted ${chain.escrow}`);
  }
  const escrowAbi = abiOf("PaymentEscrow");
  const [asset, registry] = await Promise.all([
    chain.publicClient.readContract({ address: chain.escrow, abi: escrowAbi, functionName: "token" }),
    chain.publicClient.readContract({ address: chain.escrow, abi: escrowAbi, functionName: "registry" }),
  ]);
  if (getAddress(entry.asset) !== getAddress(asset))
    throw new PinError(`the quote names asset ${entry.asset}, the escrow holds ${asset}`);
  const resourceId = entry.payTo as Hex;
  let resource;
  try {
    resource = await chain.publicClient.readContract({
      address: registry,
      abi: abiOf("ResourceRegistry"),
      functionName: "getResource",
      args: [resourceId],
    });
  } catch {
    throw new PinError(`resource ${resourceId} is not registered on chain`);
  }
  if (!resource.active) throw new PinError(`resource ${resourceId} is inactive`);
  const cap = BigInt(entry.maxAmountRequired);
  if (cap !== resource.pricing.max)
    throw new PinError(`the quoted cap ${cap} differs from the registered cap ${resource.pricing.max}`);
  const card = cardSchema.safeParse(
    await fetch(resource.cardURI, { signal: AbortSignal.timeout(5_000) })
      .then((r) => r.json())
      .catch(() => null),
  );
  if (!card.success)
    throw new PinError(`the card registered for ${resourceId} (${resource.cardURI}) is missing or invalid`);
  if (card.data.url !== callUrl)
    throw new PinError(`the registered card's call URL is ${card.data.url}, not ${callUrl}`);
  if (card.data.x402.payTo !== resourceId) throw new PinError("the registered card names another resource");
  return {
    resourceId,
    escrow: chain.escrow,
    asset: getAddress(asset),
    cap,
    maxTimeoutSeconds: entry.maxTimeoutSeconds,
  };
}
