import type { Context } from "koa";
import type { Logger } from "pino";
import { HEADER_PAYMENT_REQUIRED } from "../protocol/constants.ts";
import { defined } from "../protocol/defined.ts";
import type { QuoteError } from "../protocol/reasons.ts";
import { QUOTE_ERRORS } from "../protocol/reasons.ts";
import { buildQuote } from "../protocol/schemas/quote.ts";
import type { DiscoveryValidators } from "./discoveryExtensionOf.ts";
import { discoveryExtensionOf } from "./discoveryExtensionOf.ts";
import type { ExactFloorReader } from "./exactFloorReader.ts";
import type { ResolvedGateConfig } from "./resolveGateConfig.ts";

type Quotes = Map<QuoteError, { json: string; header: string }>;

/**
 * The flat price the `exact` entry asks now: the cap, raised to the least amount whose treasury share pays for its own
 * `settleExact` at the current base fee (the facilitator's `GET /pricing/exact`, read through `exactFloor`); undefined
 * while that amount is unknown, when the quote leaves the entry out (docs/protocol.md, "Price floor").
 * @example await exactQuoteAmount(config, reader) // 103200n for a cap of 50000 at 20 gwei and a 5% fee
 */
export async function exactQuoteAmount(
  config: Pick<ResolvedGateConfig, "cap">,
  exactFloor: Pick<ExactFloorReader, "read">,
): Promise<bigint | undefined> {
  const floor = await exactFloor.read();
  if (floor === undefined) return undefined;
  // biome-ignore lint/complexity/useMathMinMax: bigint amounts, which Math.max does not take
  return floor > config.cap ? floor : config.cap;
}

/**
 * Builds the resource's 402 quote once per refusal reason and flat price (from trusted configuration and the
 * facilitator's least `exact` amount only, never from the request) and returns a function that answers HTTP 402 with
 * the quote as the body and, base64-encoded, in `PAYMENT-REQUIRED`. The quotes are built again only when the flat price
 * moves. The quote publishes the request and response schemas the gate enforces as the Bazaar discovery extension
 * (`discoveryExtensionOf`); when they are too large for it, the quote goes without and the logger is told once.
 * @throws {SchemaValidationError} at start-up when the configuration does not form a valid quote.
 * @example const sendQuote = createQuoteSender(config, { validateRequest, validateResponse, logger, exactFloor }); await sendQuote(koa, 'payment_required')
 */
export function createQuoteSender(
  config: ResolvedGateConfig,
  {
    logger,
    exactFloor,
    ...validators
  }: DiscoveryValidators & { logger: Logger; exactFloor: Pick<ExactFloorReader, "read"> },
): (koa: Context, error: QuoteError) => Promise<void> {
  const discovery = discoveryExtensionOf(config, validators);
  if (discovery.dropped) logger.warn({ resourceId: config.resourceId }, discovery.dropped);
  const build = (exactAmount: bigint | undefined): Quotes => {
    const quotes: Quotes = new Map();
    for (const error of QUOTE_ERRORS) {
      const quote = buildQuote({
        error,
        cap: config.cap,
        asset: config.token,
        escrow: config.escrow,
        resourceId: config.resourceId,
        maxTimeoutSeconds: config.maxTimeoutSeconds,
        authorizationSeconds: config.authorizationSeconds,
        pricing: {
          model: "metered",
          base: config.pricing.base,
          perKB: config.pricing.perKB,
          computeMultiplier: config.pricing.computeMultiplier,
          maxResponseBytes: config.pricing.maxResponseBytes,
          errorPrice: "0",
        },
        resource: { url: config.callUrl, description: config.description, mimeType: "application/json" },
        includeExact: exactAmount !== undefined,
        exactAmount,
        discovery: discovery.extension,
      });
      const json = JSON.stringify(quote);
      quotes.set(error, { json, header: Buffer.from(json, "utf8").toString("base64") });
    }
    return quotes;
  };
  // Built at start-up at the cap, so a configuration that forms no valid quote fails there.
  let current: { exactAmount: bigint | undefined; quotes: Quotes } = {
    exactAmount: config.cap,
    quotes: build(config.acceptExact ? config.cap : undefined),
  };
  let unknownLogged = false;
  return async (koa, error) => {
    if (config.acceptExact) {
      const exactAmount = await exactQuoteAmount(config, exactFloor);
      if (exactAmount === undefined && !unknownLogged)
        logger.warn(
          { resourceId: config.resourceId },
          "the facilitator's least exact amount is unknown: quoting without the exact entry until it answers",
        );
      unknownLogged = exactAmount === undefined;
      if (exactAmount !== current.exactAmount) current = { exactAmount, quotes: build(exactAmount) };
    }
    const quote = defined(current.quotes.get(error), `the quote for ${error}`);
    koa.status = 402;
    koa.set(HEADER_PAYMENT_REQUIRED, quote.header);
    koa.set("Cache-Control", "no-store");
    koa.type = "application/json";
    koa.body = quote.json;
  };
}
