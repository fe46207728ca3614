import type { Logger } from "pino";
import type { Address, Hex } from "viem";
import { z } from "zod";
import {
  DEFAULT_AUTHORIZATION_SECONDS,
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_MAX_TIMEOUT_SECONDS,
  MAX_AUTHORIZATION_SECONDS,
  MAX_RESPONSE_BYTES_LIMIT,
  SIGNING_MARGIN_SECONDS,
} from "../protocol/constants.ts";
import { cardTemplateSchema } from "../protocol/schemas/card.ts";
import {
  addressSchema,
  amountSchema,
  httpUrlSchema,
  positiveAmountSchema,
  resourceIdSchema,
} from "../protocol/schemas/primitives.ts";
import type { JsonSchema } from "./compileSchema.ts";
import { compileSchema } from "./compileSchema.ts";
import { GateConfigError } from "./gateConfigError.ts";
import type { Handler } from "./handler.ts";
import { PENDING_MAX_BYTES } from "./pendingSettlements.ts";
import { schemaMessage } from "./schemaMessage.ts";

/** Seconds of latency and clock skew the gate tolerates between a buyer signing `now + maxTimeoutSeconds` and verify. */
export const VERIFY_GRACE_SECONDS = 5;

/** Seconds the gate keeps for settlement after the handler's wall-time limit, within the authorization's lifetime. */
export const SETTLE_BUDGET_SECONDS = 15;

/** Runs work with a handler where no other code runs, once its turn comes before a deadline (see `GateConfig.alone`). */
export type AloneRunner = <T>(work: (handler: Handler) => Promise<T>, deadline: number) => Promise<T | undefined>;

/** Trusted configuration of one resource's gate. Money fields of the quote come only from here. */
export type GateConfig = {
  resourceId: Hex;
  escrow: Address;
  token: Address;
  /** The ceiling a buyer signs (`maxAmountRequired`), equal to the card's `x402.pricing.max`. */
  cap: bigint | string;
  pricing: { base: string; perKB: string; computeMultiplier: number; maxResponseBytes: number };
  requestSchema: JsonSchema;
  responseSchema: JsonSchema;
  /** The agent card served free at `/.well-known/agent-card.json`, or a function returning the current one. */
  card: unknown;
  /** The public `POST /call` URL (the quote's `resource.url`). */
  callUrl: string;
  facilitatorUrl: string;
  /** A caller token for the facilitator, or a function returning a fresh one. */
  facilitatorToken?: string | (() => string) | undefined;
  maxTimeoutSeconds?: number | undefined;
  /**
   * How long the quote asks a buyer's authorization to stay valid (`extra.authorizationSeconds`), so that its
   * committed debit can be held until a batch pays for its gas: at least `maxTimeoutSeconds` + SIGNING_MARGIN_SECONDS,
   * at most MAX_AUTHORIZATION_SECONDS (the default). It does not lengthen a reservation.
   */
  authorizationSeconds?: number | undefined;
  handlerTimeoutMs?: number | undefined;
  maxBodyBytes?: number | undefined;
  /**
   * Paid calls this gate takes at once, each from before its reservation until its answer; one more is answered 503
   * `endpoint_busy` with `Retry-After` before anything is reserved (default: no bound).
   */
  maxConcurrentCalls?: number | undefined;
  /** Offer the flat `exact` entry besides `service-escrow` (default true). */
  acceptExact?: boolean | undefined;
  /** Most bytes of settlements answered 503 the gate keeps for their retries (pendingSettlements.ts; default 16 MiB). */
  pendingMaxBytes?: number | undefined;
  handler: Handler;
  /**
   * A request body the creator declares its handler answers (default `{}`); it must pass the request schema. A failed
   * paid call is a strike only when this sample fails too (see `createFailureReproducer`).
   */
  sampleRequest?: Record<string, unknown> | undefined;
  /** Whether the handler can take calls (the host: its sandbox is up). */
  ready?: (() => boolean | Promise<boolean>) | undefined;
  /**
   * Runs `work` with the handler's code where no other code runs (the host: a fresh isolate in a workerd process of
   * its own), once its turn comes before `deadline` (ms); undefined when it does not. The sample request runs there,
   * so that only the creator's own code decides a strike. Without it the sample runs on `handler`, alone on this
   * gate, once `ready` holds: enough only where the handler has its process to itself.
   */
  alone?: AloneRunner | undefined;
  logger?: Logger | undefined;
};

/** A {@link GateConfig} after validation, with defaults applied. */
export type ResolvedGateConfig = Omit<
  GateConfig,
  | "cap"
  | "card"
  | "maxTimeoutSeconds"
  | "authorizationSeconds"
  | "handlerTimeoutMs"
  | "maxBodyBytes"
  | "acceptExact"
  | "sampleRequest"
  | "pendingMaxBytes"
> & {
  sampleRequest: Record<string, unknown>;
  cap: bigint;
  card: () => unknown;
  description: string;
  maxTimeoutSeconds: number;
  authorizationSeconds: number;
  handlerTimeoutMs: number;
  maxBodyBytes: number;
  acceptExact: boolean;
  pendingMaxBytes: number;
};

const configSchema = z.object({
  resourceId: resourceIdSchema,
  escrow: addressSchema,
  token: addressSchema,
  cap: z.union([z.bigint().transform(String), z.string()]).pipe(positiveAmountSchema),
  pricing: z.strictObject({
    base: amountSchema,
    perKB: amountSchema,
    computeMultiplier: z.number().positive().finite(),
    maxResponseBytes: z.int().positive().max(MAX_RESPONSE_BYTES_LIMIT),
  }),
  requestSchema: z.union([z.record(z.string(), z.unknown()), z.boolean()]),
  responseSchema: z.union([z.record(z.string(), z.unknown()), z.boolean()]),
  callUrl: httpUrlSchema,
  facilitatorUrl: httpUrlSchema,
  maxTimeoutSeconds: z
    .int()
    .min(VERIFY_GRACE_SECONDS + SETTLE_BUDGET_SECONDS + 1)
    .max(86_400)
    .default(DEFAULT_MAX_TIMEOUT_SECONDS),
  authorizationSeconds: z.int().positive().max(MAX_AUTHORIZATION_SECONDS).default(DEFAULT_AUTHORIZATION_SECONDS),
  handlerTimeoutMs: z.int().positive().default(10_000),
  maxBodyBytes: z.int().positive().default(DEFAULT_MAX_BODY_BYTES),
  maxConcurrentCalls: z.int().positive().optional(),
  acceptExact: z.boolean().default(true),
  pendingMaxBytes: z.int().positive().default(PENDING_MAX_BYTES),
  sampleRequest: z.record(z.string(), z.unknown()).default({}),
  handler: z.custom<Handler>((value) => typeof value === "function", "must be a function"),
});

/** Why the request schema refuses the sample request, or undefined (also when the schema itself does not compile). */
function refusedSample(requestSchema: JsonSchema, sample: Record<string, unknown>): string | undefined {
  let validate: ReturnType<typeof compileSchema>;
  try {
    validate = compileSchema(requestSchema, "requestSchema");
  } catch {
    return undefined;
  }
  return validate(sample) === true
    ? undefined
    : `sampleRequest: the request schema refuses it (${schemaMessage(validate)})`;
}

/** What {@link resolveGateConfig} throws. */
export type ResolveGateConfigErrorType = GateConfigError;

/**
 * Validates a gate's configuration and checks that its card agrees with it (asset, escrow, payTo, pricing, url).
 * @throws {GateConfigError} on any problem, so bad configuration fails at start-up.
 * @example const resolved = resolveGateConfig({ resourceId, escrow, token, cap: 50000n, ... })
 */
export function resolveGateConfig(config: GateConfig): ResolvedGateConfig {
  const parsed = configSchema.safeParse(config);
  if (!parsed.success) {
    throw new GateConfigError(
      `invalid gate configuration: ${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`,
    );
  }
  const c = parsed.data;
  const problems: string[] = [];
  if (BigInt(c.pricing.base) === 0n && BigInt(c.pricing.perKB) === 0n)
    problems.push("pricing: base or perKB must be positive");
  if (c.handlerTimeoutMs / 1000 > c.maxTimeoutSeconds - VERIFY_GRACE_SECONDS - SETTLE_BUDGET_SECONDS) {
    problems.push(
      `handlerTimeoutMs must leave ${VERIFY_GRACE_SECONDS + SETTLE_BUDGET_SECONDS}s of maxTimeoutSeconds for verify and settle`,
    );
  }
  if (c.authorizationSeconds < c.maxTimeoutSeconds + SIGNING_MARGIN_SECONDS) {
    problems.push(
      `authorizationSeconds must be at least maxTimeoutSeconds + ${SIGNING_MARGIN_SECONDS} (${c.maxTimeoutSeconds + SIGNING_MARGIN_SECONDS}), the window a buyer signs anyway`,
    );
  }
  const sampleProblem = refusedSample(c.requestSchema, c.sampleRequest);
  if (sampleProblem) problems.push(sampleProblem);
  const card = typeof config.card === "function" ? (config.card as () => unknown) : () => config.card;
  const template = cardTemplateSchema.safeParse(card());
  if (!template.success) {
    problems.push(`card: ${template.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`);
  } else {
    const x402 = template.data.x402;
    const agreements: [string, boolean][] = [
      ["card.url must equal callUrl", template.data.url === c.callUrl],
      ["card.x402.asset must equal token", x402.asset === c.token],
      ["card.x402.escrow must equal escrow", x402.escrow === c.escrow],
      ["card.x402.payTo must equal resourceId", x402.payTo === c.resourceId],
      ["card.x402.pricing.max must equal cap", x402.pricing.max === c.cap],
      ["card.x402.pricing.base must equal pricing.base", x402.pricing.base === c.pricing.base],
      ["card.x402.pricing.perKB must equal pricing.perKB", x402.pricing.perKB === c.pricing.perKB],
    ];
    for (const [problem, agrees] of agreements) if (!agrees) problems.push(problem);
  }
  if (problems.length > 0) throw new GateConfigError(`invalid gate configuration: ${problems.join("; ")}`);
  return {
    ...config,
    ...c,
    resourceId: c.resourceId,
    cap: BigInt(c.cap),
    card,
    description: template.success ? template.data.description : "",
  };
}
