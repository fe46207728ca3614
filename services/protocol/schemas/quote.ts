import { z } from "zod";
import {
  CHAIN_ID,
  DEFAULT_MAX_TIMEOUT_SECONDS,
  ESCROW_DOMAIN_NAME,
  ESCROW_DOMAIN_VERSION,
  NETWORK,
  SCHEME_ESCROW,
  SCHEME_EXACT,
  TOKEN_DOMAIN_NAME,
  TOKEN_DOMAIN_VERSION,
  X402_VERSION,
} from "../constants.ts";
import { SchemaValidationError } from "../errors.ts";
import type { QuoteError } from "../reasons.ts";
import { QUOTE_ERRORS } from "../reasons.ts";
import type { DiscoveryExtension } from "./discoveryExtension.ts";
import { discoveryExtensionSchema, MAX_DISCOVERY_BYTES } from "./discoveryExtension.ts";
import { meteredTermsSchema } from "./pricing.ts";
import { addressSchema, amountSchema, httpUrlSchema, nonEmptyStringSchema, resourceIdSchema } from "./primitives.ts";
import { whenParsed } from "./whenParsed.ts";

function amountEqualsCap(entry: { amount: string; maxAmountRequired: string }) {
  return entry.amount === entry.maxAmountRequired;
}

const amountDiffersFromCap = { message: "amount must equal maxAmountRequired", path: ["amount"], ...whenParsed };

/** The `accepts` entry of the gated metered scheme `service-escrow`. */
export const escrowAcceptSchema = z
  .strictObject({
    scheme: z.literal(SCHEME_ESCROW),
    network: z.literal(NETWORK),
    maxAmountRequired: amountSchema,
    amount: amountSchema,
    asset: addressSchema,
    escrow: addressSchema,
    payTo: resourceIdSchema,
    maxTimeoutSeconds: z.int().positive(),
    pricing: meteredTermsSchema,
    eip712Domain: z.strictObject({
      name: z.literal(ESCROW_DOMAIN_NAME),
      version: z.literal(ESCROW_DOMAIN_VERSION),
      chainId: z.literal(CHAIN_ID),
      verifyingContract: addressSchema,
    }),
    /**
     * How long the gate asks the buyer's authorization to stay valid (seconds), so that its debit can be held until
     * a batch pays for its gas; a buyer signs at most its own cap of it. Absent from older gates' quotes.
     */
    extra: z.strictObject({ authorizationSeconds: z.int().positive() }).optional(),
  })
  .refine(amountEqualsCap, amountDiffersFromCap)
  .refine((entry) => entry.eip712Domain.verifyingContract === entry.escrow, {
    message: "eip712Domain.verifyingContract must equal escrow",
    path: ["eip712Domain", "verifyingContract"],
    ...whenParsed,
  });

/** The `accepts` entry of the escrow scheme. */
export type EscrowAccept = z.output<typeof escrowAcceptSchema>;

/** The `accepts` entry of the flat EIP-3009 scheme `exact`, paid to the escrow contract. */
export const exactAcceptSchema = z
  .strictObject({
    scheme: z.literal(SCHEME_EXACT),
    network: z.literal(NETWORK),
    maxAmountRequired: amountSchema,
    amount: amountSchema,
    asset: addressSchema,
    payTo: addressSchema,
    maxTimeoutSeconds: z.int().positive(),
    extra: z.strictObject({
      name: z.literal(TOKEN_DOMAIN_NAME),
      version: z.literal(TOKEN_DOMAIN_VERSION),
      resourceId: resourceIdSchema,
    }),
  })
  .refine(amountEqualsCap, amountDiffersFromCap);

/** The `accepts` entry of the exact scheme. */
export type ExactAccept = z.output<typeof exactAcceptSchema>;

/** A quote's `extensions`: the Bazaar discovery extension, at most {@link MAX_DISCOVERY_BYTES} as JSON. */
export const quoteExtensionsSchema = z
  .strictObject({ bazaar: discoveryExtensionSchema })
  .refine((extensions) => Buffer.byteLength(JSON.stringify(extensions), "utf8") <= MAX_DISCOVERY_BYTES, {
    message: `extensions must be at most ${MAX_DISCOVERY_BYTES} bytes as JSON`,
    ...whenParsed,
  });

/**
 * The HTTP 402 body of `POST /call`: version, refusal reason, one escrow entry and an optional exact entry, resource,
 * and optionally the Bazaar discovery extension with the resource's request and response schemas.
 */
export const quoteSchema = z
  .strictObject({
    x402Version: z.literal(X402_VERSION),
    error: z.enum(QUOTE_ERRORS),
    accepts: z.union([z.tuple([escrowAcceptSchema]), z.tuple([escrowAcceptSchema, exactAcceptSchema])]),
    resource: z.strictObject({ url: httpUrlSchema, description: z.string(), mimeType: nonEmptyStringSchema }),
    extensions: quoteExtensionsSchema.optional(),
  })
  .superRefine((quote, ctx) => {
    const [escrow, exact] = quote.accepts;
    if (!exact) return;
    const agreements = [
      [["asset"], exact.asset === escrow.asset],
      [["payTo"], exact.payTo === escrow.escrow],
      // The flat price is the cap, raised where the cap's treasury share would not pay for its own settlement.
      [["maxAmountRequired"], BigInt(exact.maxAmountRequired) >= BigInt(escrow.maxAmountRequired)],
      [["extra", "resourceId"], exact.extra.resourceId === escrow.payTo],
    ] as const;
    for (const [path, agrees] of agreements) {
      if (agrees) continue;
      ctx.addIssue({
        code: "custom",
        path: ["accepts", 1, ...path],
        message: `exact entry disagrees with the escrow entry on ${path.join(".")}`,
      });
    }
  }, whenParsed);

/** The HTTP 402 body of `POST /call`. */
export type Quote = z.output<typeof quoteSchema>;

/** What a gate knows when it quotes: the cap, the contracts, the resource, its metered terms and the flat price. */
export type BuildQuoteParameters = {
  error?: QuoteError | undefined;
  cap: bigint | string;
  asset: string;
  escrow: string;
  resourceId: string;
  maxTimeoutSeconds?: number | undefined;
  /** The escrow entry's `extra.authorizationSeconds`: how long the gate asks the authorization to stay valid. */
  authorizationSeconds?: number | undefined;
  pricing: z.input<typeof meteredTermsSchema>;
  resource: { url: string; description: string; mimeType?: string | undefined };
  includeExact?: boolean | undefined;
  /**
   * The `exact` entry's amount, when it is more than the cap: the least `exact` amount whose treasury share pays for
   * its own settlement at the current base fee (docs/protocol.md, "Price floor"). Default (and never less than) the cap.
   */
  exactAmount?: bigint | string | undefined;
  /** The resource's schemas and example call (see `buildDiscoveryExtension`), published as `extensions.bazaar`. */
  discovery?: DiscoveryExtension | undefined;
};

/**
 * Builds a validated 402 quote with its keys in wire order (`x402Version`, `error`, `accepts`, `resource`, then
 * `extensions` when there is a discovery extension).
 * @throws {SchemaValidationError} when the parameters do not form a valid quote.
 * @example buildQuote({ cap: 50000n, asset, escrow, resourceId, pricing, resource: { url, description } })
 */
export function buildQuote(parameters: BuildQuoteParameters): Quote {
  const cap = String(parameters.cap);
  const maxTimeoutSeconds = parameters.maxTimeoutSeconds ?? DEFAULT_MAX_TIMEOUT_SECONDS;
  const escrow = {
    scheme: SCHEME_ESCROW,
    network: NETWORK,
    maxAmountRequired: cap,
    amount: cap,
    asset: parameters.asset,
    escrow: parameters.escrow,
    payTo: parameters.resourceId,
    maxTimeoutSeconds,
    pricing: parameters.pricing,
    eip712Domain: {
      name: ESCROW_DOMAIN_NAME,
      version: ESCROW_DOMAIN_VERSION,
      chainId: CHAIN_ID,
      verifyingContract: parameters.escrow,
    },
    ...(parameters.authorizationSeconds === undefined
      ? {}
      : { extra: { authorizationSeconds: parameters.authorizationSeconds } }),
  };
  const flat = String(parameters.exactAmount ?? cap);
  const exact = {
    scheme: SCHEME_EXACT,
    network: NETWORK,
    maxAmountRequired: flat,
    amount: flat,
    asset: parameters.asset,
    payTo: parameters.escrow,
    maxTimeoutSeconds,
    extra: { name: TOKEN_DOMAIN_NAME, version: TOKEN_DOMAIN_VERSION, resourceId: parameters.resourceId },
  };
  const result = quoteSchema.safeParse({
    x402Version: X402_VERSION,
    error: parameters.error ?? "payment_required",
    accepts: parameters.includeExact ? [escrow, exact] : [escrow],
    resource: { ...parameters.resource, mimeType: parameters.resource.mimeType ?? "application/json" },
    ...(parameters.discovery ? { extensions: { bazaar: parameters.discovery } } : {}),
  });
  if (!result.success) throw new SchemaValidationError("quote", z.prettifyError(result.error), result.error);
  return result.data;
}
