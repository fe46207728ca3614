import type { Address, Hex } from "viem";
import { getAddress } from "viem";
import {
  CHAIN_ID,
  MAX_AUTHORIZATION_SECONDS,
  NETWORK,
  SCHEME_ESCROW,
  SIGNING_MARGIN_SECONDS,
} from "../../../protocol/constants.ts";
import type { Quote } from "../../../protocol/schemas/quote.ts";
import type { BuyerChain } from "./buyerChain.ts";
import { PinError } from "./pinError.ts";
import type { PinnedCard } from "./readPinnedCard.ts";
import { readPinnedCard } from "./readPinnedCard.ts";

/** Terms a buyer signs: every money field re-derived from the chain and trusted constants, never from an index row. */
export type PinnedTerms = {
  resourceId: Hex;
  escrow: Address;
  asset: Address;
  cap: bigint;
  maxTimeoutSeconds: number;
  /** How long the quote asks the authorization to stay valid (`extra.authorizationSeconds`), unchecked; absent from older gates. */
  authorizationSeconds?: number | undefined;
  /** The resource's creator, as registered on chain. */
  creator: Address;
};

/** Seconds the SDK adds to the quote's `maxTimeoutSeconds` when it signs: the authorization must outlive the call. */
export { SIGNING_MARGIN_SECONDS };

/**
 * Checks a 402 quote's escrow entry against the chain before anything is signed: the escrow is the trusted one,
 * the asset is the escrow's token, the resource (payTo) is registered and active with exactly the quoted cap, and
 * the card the registry points to (strict, hashed to the registry's `cardHash`, pinned by `readPinnedCard`) names
 * this call URL, and the authorization it asks for ends within `MAX_AUTHORIZATION_SECONDS`.
 * @example const terms = await pinPaymentTerms(chain, quote, "http://127.0.0.1:4030/r/echo/call")
 */
export async function pinPaymentTerms(
  chain: BuyerChain,
  quote: Quote,
  callUrl: string,
  pinned?: PinnedCard,
): Promise<PinnedTerms> {
  const entry = quote.accepts.find((a) => a.scheme === SCHEME_ESCROW);
  if (!entry || entry.scheme !== SCHEME_ESCROW) throw new PinError("the quote has no service-escrow entry");
  if (entry.network !== NETWORK || entry.eip712Domain.chainId !== CHAIN_ID)
    throw new PinError(`the quote is for another network (${entry.network})`);
  if (getAddress(entry.escrow) !== chain.escrow || getAddress(entry.eip712Domain.verifyingContract) !== chain.escrow) {
    throw new PinError(`the quote names escrow ${entry.escrow}, not the trusted ${chain.escrow}`);
  }
  const resourceId = entry.payTo as Hex;
  if (pinned && pinned.resourceId !== resourceId)
    throw new PinError(`the quote pays ${resourceId}, not the resource called (${pinned.resourceId})`);
  const card = pinned ?? (await readPinnedCard(chain, resourceId));
  if (getAddress(entry.asset) !== card.asset)
    throw new PinError(`the quote names asset ${entry.asset}, the escrow holds ${card.asset}`);
  if (!card.active) throw new PinError(`resource ${resourceId} is inactive`, "inactive_resource");
  const cap = BigInt(entry.maxAmountRequired);
  if (cap !== card.cap) throw new PinError(`the quoted cap ${cap} differs from the registered cap ${card.cap}`);
  if (card.card.url !== callUrl)
    throw new PinError(`the registered card's call URL is ${card.card.url}, not ${callUrl}`);
  if (entry.maxTimeoutSeconds + SIGNING_MARGIN_SECONDS > MAX_AUTHORIZATION_SECONDS)
    throw new PinError(
      `the quote asks for an authorization valid ${entry.maxTimeoutSeconds} s, past the ${MAX_AUTHORIZATION_SECONDS} s a facilitator accepts`,
    );
  return {
    resourceId,
    escrow: chain.escrow,
    asset: card.asset,
    cap,
    maxTimeoutSeconds: entry.maxTimeoutSeconds,
    authorizationSeconds: entry.extra?.authorizationSeconds,
    creator: card.creator,
  };
}
