import { z } from "zod";
import { SETTLE_BUDGET_SECONDS, VERIFY_GRACE_SECONDS } from "../gate/resolveGateConfig.ts";
import {
  DEFAULT_AUTHORIZATION_SECONDS,
  MAX_AUTHORIZATION_SECONDS,
  SIGNING_MARGIN_SECONDS,
} from "../protocol/constants.ts";
import { BaseError } from "../protocol/errors.ts";
import { addressSchema, httpUrlSchema } from "../protocol/schemas/primitives.ts";
import { DEFAULT_SANDBOX_WATCHDOG } from "./watchSandboxProcess.ts";

const flag = z.enum(["0", "1", "true", "false", "on", "off"]).transform((v) => v === "1" || v === "true" || v === "on");

/** Everything the resource host reads from its environment, validated at start-up. */
export const hostEnvSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(4030),
  HOST: z.string().default("127.0.0.1"),
  /** Base of every resource URL (`{PUBLIC_URL}/r/{slug}`); defaults to `http://HOST:PORT` once listening. */
  PUBLIC_URL: httpUrlSchema.optional(),
  /** Where the embedded store (PGlite) keeps the deployments when no DATABASE_URL is set. */
  DATA_DIR: z.string().default(".data/host"),
  /** PostgreSQL holding the deployments that every host instance serves; unset: PGlite in DATA_DIR. */
  DATABASE_URL: z.string().optional(),
  DATABASE_SCHEMA: z
    .string()
    .regex(/^[a-z_][a-z0-9_]{0,40}$/)
    .default("host"),
  /** How often an instance compares its deployments with the store, besides the store's change notifications. */
  DEPLOYMENT_RESYNC_MS: z.coerce.number().int().min(100).max(3_600_000).default(30_000),
  /** Bearer token of the deploy API; when unset every deploy is refused. */
  HOST_TOKEN: z.string().min(16, "must be at least 16 characters").optional(),
  /**
   * The key that seals each stored deployment (never in the database); unset: a key kept in DATA_DIR/seal.key. Every
   * instance sharing a database needs the same one.
   */
  HOST_SEAL_SECRET: z.string().min(32, "must be at least 32 characters").optional(),
  FACILITATOR_URL: httpUrlSchema,
  ESCROW_ADDRESS: addressSchema,
  TOKEN_ADDRESS: addressSchema,
  /** The marketplace whose index the served cards follow for `health` and `bond`; unset: the neutral values. */
  MARKETPLACE_URL: httpUrlSchema.optional(),
  LIVE_FIELDS_INTERVAL_MS: z.coerce.number().int().min(50).default(5_000),
  /** The facilitator's caller-auth secret: the host then signs a caller token per resource. */
  FACILITATOR_AUTH_SECRET: z.string().min(32, "must be at least 32 characters").optional(),
  HANDLER_TIMEOUT_MS: z.coerce.number().int().min(100).max(40_000).default(10_000),
  /**
   * How long starting a sandbox process, or loading one handler into it, may take: a backstop for a module whose top
   * level never finishes (the watchdog restarts a shard that stalls sooner). On a machine busy with other work a load
   * that takes milliseconds alone can take seconds.
   */
  SANDBOX_START_TIMEOUT_MS: z.coerce.number().int().min(1_000).max(600_000).default(10_000),
  MAX_TIMEOUT_SECONDS: z.coerce.number().int().min(21).max(86_400).default(60),
  /** How long each gate's quote asks a buyer's authorization to stay valid (`extra.authorizationSeconds`). */
  AUTHORIZATION_SECONDS: z.coerce
    .number()
    .int()
    .positive()
    .max(MAX_AUTHORIZATION_SECONDS)
    .default(DEFAULT_AUTHORIZATION_SECONDS),
  /** Paid calls one endpoint takes at once (from before the reservation to the answer); more: 503 with Retry-After. */
  ENDPOINT_MAX_CONCURRENT_CALLS: z.coerce.number().int().min(1).max(100_000).default(128),
  /** workerd processes that endpoints without network share (each endpoint its own isolate in one of them). */
  SANDBOX_SHARDS: z.coerce.number().int().min(1).max(64).default(4),
  /** Endpoints one shard holds loaded; past it, its least recently called idle endpoint is unloaded. */
  SANDBOX_SHARD_CAPACITY: z.coerce.number().int().min(1).max(10_000).default(400),
  /** An endpoint not called for this long is unloaded; its next call loads it again. */
  SANDBOX_IDLE_UNLOAD_MS: z.coerce.number().int().min(1_000).max(604_800_000).default(900_000),
  /** How long endpoints blamed for a stalled shard run apart, in a quarantine shard. */
  SANDBOX_QUARANTINE_MS: z.coerce.number().int().min(1_000).max(604_800_000).default(3_600_000),
  SANDBOX_HEAP_MB: z.coerce.number().int().min(16).max(4096).default(128),
  SANDBOX_DATA_LIMIT_MB: z.coerce.number().int().min(768).max(65_536).default(1024),
  /** How often every shard, busy or idle, gets a health probe; one unanswered within SANDBOX_STALL_MS restarts it. */
  SANDBOX_HEALTH_INTERVAL_MS: z.coerce
    .number()
    .int()
    .min(50)
    .max(3_600_000)
    .default(DEFAULT_SANDBOX_WATCHDOG.healthIntervalMs),
  /** How long a shard's thread may stay busy without answering its probe (one handler holding up its neighbours). */
  SANDBOX_STALL_MS: z.coerce.number().int().min(100).max(40_000).default(DEFAULT_SANDBOX_WATCHDOG.probeTimeoutMs),
  /** How often the watchdog reads each workerd process's CPU time from /proc. */
  SANDBOX_WATCHDOG_INTERVAL_MS: z.coerce.number().int().min(20).max(60_000).default(DEFAULT_SANDBOX_WATCHDOG.tickMs),
  /** CPU time a sandbox process may burn that no call in flight accounts for, before it is killed and restarted. */
  SANDBOX_IDLE_CPU_MS: z.coerce.number().int().min(50).max(600_000).default(DEFAULT_SANDBOX_WATCHDOG.idleCpuMs),
  /** Let a deployment's network allow-list name loopback and private ranges (development and tests only). */
  SANDBOX_ALLOW_PRIVATE_NETWORK: flag.default(false),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
});

/** The host's validated configuration. */
export type HostConfig = z.output<typeof hostEnvSchema>;

/** Refused host configuration, with every problem named. */
export class HostConfigError extends BaseError {
  override name = "HostConfigError";
}

/**
 * Reads and validates the host configuration; bad configuration fails here, at start-up.
 * @example const config = loadHostConfig(process.env)
 */
export function loadHostConfig(env: Record<string, string | undefined>): HostConfig {
  const parsed = hostEnvSchema
    .refine((c) => c.SANDBOX_STALL_MS <= c.HANDLER_TIMEOUT_MS, {
      message: "must not exceed HANDLER_TIMEOUT_MS: a stalled shard is stopped within a call's time limit",
      path: ["SANDBOX_STALL_MS"],
    })
    .refine(
      (c) => c.HANDLER_TIMEOUT_MS / 1000 <= c.MAX_TIMEOUT_SECONDS - VERIFY_GRACE_SECONDS - SETTLE_BUDGET_SECONDS,
      {
        message: `must leave ${VERIFY_GRACE_SECONDS + SETTLE_BUDGET_SECONDS} s of MAX_TIMEOUT_SECONDS for verify and settle`,
        path: ["HANDLER_TIMEOUT_MS"],
      },
    )
    .refine((c) => c.AUTHORIZATION_SECONDS >= c.MAX_TIMEOUT_SECONDS + SIGNING_MARGIN_SECONDS, {
      message: `must be at least MAX_TIMEOUT_SECONDS + ${SIGNING_MARGIN_SECONDS}, the window a buyer signs anyway`,
      path: ["AUTHORIZATION_SECONDS"],
    })
    .safeParse(env);
  if (!parsed.success) {
    throw new HostConfigError(
      `invalid host configuration: ${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`,
    );
  }
  return parsed.data;
}
