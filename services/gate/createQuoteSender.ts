import type { Context } from "koa";
import type { Logger } from "pino";
import { HEADER_PAYMENT_REQUIRED } from "../protocol/constants.ts";
import { defined } from "../protocol/defined.ts";
import type { QuoteError } from "../protocol/reasons.ts";
import { QUOTE_ERRORS } from "../protocol/reasons.ts";
import { buildQuote } from "../protocol/schemas/quote.ts";
import type { DiscoveryValidators } from "./discoveryExtensionOf.ts";
import { discoveryExtensionOf } from "./discoveryExtensionOf.ts";
import type { ResolvedGateConfig } from "./resolveGateConfig.ts";

/**
 * Builds the resource's 402 quote once per refusal reason (from trusted configuration only) and returns a function
 * that answers HTTP 402 with the quote as the body and, base64-encoded, in `PAYMENT-REQUIRED`. The quote publishes
 * the request and response schemas the gate enforces as the Bazaar discovery extension (`discoveryExtensionOf`);
 * when they are too large for it, the quote goes without and the logger is told once.
 * @throws {SchemaValidationError} at start-up when the configuration does not form a valid quote.
 * @example const sendQuote = createQuoteSender(config, { validateRequest, validateResponse, logger }); sendQuote(koa, 'payment_required')
 */
export function createQuoteSender(
  config: ResolvedGateConfig,
  { logger, ...validators }: DiscoveryValidators & { logger: Logger },
): (koa: Context, error: QuoteError) => void {
  const discovery = discoveryExtensionOf(config, validators);
  if (discovery.dropped) logger.warn({ resourceId: config.resourceId }, discovery.dropped);
  const quotes = new Map<QuoteError, { json: string; header: string }>();
  for (const error of QUOTE_ERRORS) {
    const quote = buildQuote({
      error,
      cap: config.cap,
      asset: config.token,
      escrow: config.escrow,
      resourceId: config.resourceId,
      maxTimeoutSeconds: config.maxTimeoutSeconds,
      pricing: {
        model: "metered",
        base: config.pricing.base,
        perKB: config.pricing.perKB,
        computeMultiplier: config.pricing.computeMultiplier,
        maxResponseBytes: config.pricing.maxResponseBytes,
        errorPrice: "0",
      },
      resource: { url: config.callUrl, description: config.description, mimeType: "application/json" },
      includeExact: config.acceptExact,
      discovery: discovery.extension,
    });
    const json = JSON.stringify(quote);
    quotes.set(error, { json, header: Buffer.from(json, "utf8").toString("base64") });
  }
  return (koa, error) => {
    const quote = defined(quotes.get(error), `the quote for ${error}`);
    koa.status = 402;
    koa.set(HEADER_PAYMENT_REQUIRED, quote.header);
    koa.set("Cache-Control", "no-store");
    koa.type = "application/json";
    koa.body = quote.json;
  };
}
