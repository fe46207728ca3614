import type { Quote } from "../../../protocol/schemas/quote.ts";
import { quoteSchema } from "../../../protocol/schemas/quote.ts";
import type { BuyerChain } from "./buyerChain.ts";
import { BuyerError } from "./buyerError.ts";
import { errorOf, fetchJson } from "./fetchJson.ts";
import type { PinnedTerms } from "./pinPaymentTerms.ts";
import { pinPaymentTerms } from "./pinPaymentTerms.ts";
import type { PinnedCard } from "./readPinnedCard.ts";

export type RequestQuoteParameters = {
  chain: BuyerChain;
  /** The resource's `POST /call` URL. */
  callUrl: string;
  body: unknown;
  /** The card already pinned for this resource, when the caller has it (saves a second read). */
  pinned?: PinnedCard;
};

/**
 * Asks a resource for its 402 quote (a `POST /call` without payment) and pins its money fields against the chain.
 * Nothing is signed. A body the resource refuses (400 `invalid_request`, the request schema's message) throws
 * `invalid_body` with that message; any other answer but 402 throws `no_quote`.
 * @example const { quote, terms } = await requestQuote({ chain, callUrl: card.url, body: { hello: "world" } })
 */
export async function requestQuote(p: RequestQuoteParameters): Promise<{ quote: Quote; terms: PinnedTerms }> {
  const { response, json } = await fetchJson(
    p.callUrl,
    {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(p.body),
    },
    "resource",
    { allowPrivate: p.chain.allowPrivateAddresses },
  );
  if (response.status !== 402) {
    const error = errorOf(json, response.status);
    if (response.status === 400 && error.code === "invalid_request")
      throw new BuyerError(
        "invalid_body",
        `the resource refuses this body: ${error.message}; nothing was quoted or paid`,
      );
    throw new BuyerError("no_quote", `expected a 402 quote, got ${response.status} ${error.code}: ${error.message}`);
  }
  const parsed = quoteSchema.safeParse(json);
  if (!parsed.success) throw new BuyerError("invalid_quote", `the 402 quote fails the schema: ${parsed.error.message}`);
  const terms = await pinPaymentTerms(p.chain, parsed.data, p.callUrl, p.pinned);
  return { quote: parsed.data, terms };
}
