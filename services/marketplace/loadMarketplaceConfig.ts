import { z } from "zod";
import { parseSettings } from "../keys/parseSettings.ts";
import { DEFAULT_MIN_BOND, SETTLEMENT_GAS_PER_DEBIT, SETTLEMENT_MARGIN_BPS } from "../protocol/constants.ts";
import { BaseError } from "../protocol/errors.ts";
import { addressSchema, amountSchema } from "../protocol/schemas/primitives.ts";

const privateKey = z.string().regex(/^0x[0-9a-fA-F]{64}$/, "must be 0x followed by 64 hex digits");
const milliseconds = (fallback: number) => z.coerce.number().int().min(0).default(fallback);

/** Everything the marketplace reads from its environment, validated at start-up. */
export const marketplaceEnvSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(4030),
  HOST: z.string().default("127.0.0.1"),
  /** The marketplace's public base URL ({base_url}); cards and registration files are served under it. */
  PUBLIC_URL: z.url().optional(),
  RPC_URL: z.url(),
  /** The Ponder indexer's base URL; the catalog reads its projections over `/sql`. */
  INDEXER_URL: z.url(),
  TOKEN_ADDRESS: addressSchema,
  ESCROW_ADDRESS: addressSchema,
  REGISTRY_ADDRESS: addressSchema,
  IDENTITY_ADDRESS: addressSchema,
  /**
   * The operator: mints identities and submits registrations (it pays gas, never a bond). Or a keystore:
   * `OPERATOR_KEY_FILE` with `OPERATOR_KEY_PASSWORD_FILE`.
   */
  OPERATOR_KEY: privateKey,
  /** Bearer token of `POST /resources`; when absent every publish is refused (fail-closed). */
  PUBLISH_TOKEN: z.string().min(16, "must be at least 16 characters").optional(),
  /** Least bond a listing needs (base units); the registry's own `minBond` applies when higher. */
  MIN_BOND: amountSchema.default(DEFAULT_MIN_BOND.toString()),
  /** Gas one settled debit is expected to cost; with the base fee and the escrow's fee it sets the price floor. */
  SETTLEMENT_GAS_PER_DEBIT: z.coerce.number().int().min(0).max(10_000_000).default(SETTLEMENT_GAS_PER_DEBIT),
  /** The operator's margin over the expected settlement cost, in basis points (2000 = 20%). */
  SETTLEMENT_MARGIN_BPS: z.coerce.number().int().min(0).max(100_000).default(SETTLEMENT_MARGIN_BPS),
  /** Comma-separated words moderation refuses in a name, description, category or skill. */
  MODERATION_BLOCKLIST: z.string().default("malware,phishing,ransomware,keylogger,botnet,carding,stolen credentials"),
  DATABASE_URL: z.string().optional(),
  DATA_DIR: z.string().default(".data/marketplace"),
  DATABASE_SCHEMA: z
    .string()
    .regex(/^[a-z_][a-z0-9_]*$/)
    .default("marketplace"),
  /** How often the catalog pulls changes from the indexer and the store. */
  SYNC_INTERVAL_MS: milliseconds(100),
  /** How often the catalog is rebuilt from scratch (a reorg rewrites history the incremental pull cannot see). */
  RESYNC_INTERVAL_MS: milliseconds(300_000),
  /** How often each listed resource is probed; 0 turns the prober off. */
  PROBE_INTERVAL_MS: milliseconds(60_000),
  PROBE_TIMEOUT_MS: z.coerce.number().int().min(100).default(5_000),
  /** Largest answer body the probe reads (a card or a quote is a few KB); a larger one fails the probe. */
  PROBE_MAX_BODY_BYTES: z.coerce.number().int().min(1_024).max(16_777_216).default(262_144),
  /** Let the probe reach loopback and private addresses (a resource URL on this machine or a LAN): the embedded stack only. */
  PROBE_ALLOW_PRIVATE: z
    .enum(["0", "1", "true", "false", "on", "off"])
    .transform((v) => v === "1" || v === "true" || v === "on")
    .default(false),
  PROBE_CONCURRENCY: z.coerce.number().int().min(1).max(256).default(8),
  /** Probes that `uptime` is the pass share of. */
  UPTIME_WINDOW: z.coerce.number().int().min(1).max(10_000).default(100),
  /** Probes that `health.score` is the pass share of. */
  HEALTH_WINDOW: z.coerce.number().int().min(1).max(1_000).default(10),
  /** How far the indexer may trail the chain head and still be ready. */
  READY_MAX_LAG_BLOCKS: z.coerce.number().int().min(0).default(2),
  /** How long a publish waits for the indexer to show a registration. */
  INDEX_WAIT_MS: z.coerce.number().int().min(100).default(30_000),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
});

/** The marketplace's validated configuration. */
export type MarketplaceConfig = z.output<typeof marketplaceEnvSchema>;

/** Refused configuration, with every problem named. */
export class MarketplaceConfigError extends BaseError {
  override name = "MarketplaceConfigError";
}

/** What {@link loadMarketplaceConfig} throws. */
export type LoadMarketplaceConfigErrorType = MarketplaceConfigError;

/**
 * Reads and validates the marketplace configuration; bad configuration fails here, at start-up.
 * @example const config = loadMarketplaceConfig(process.env)
 */
export function loadMarketplaceConfig(env: Record<string, string | undefined>): MarketplaceConfig {
  const parsed = parseSettings(marketplaceEnvSchema, env, { OPERATOR_KEY: "one" });
  if (!parsed.success) {
    throw new MarketplaceConfigError(`invalid marketplace configuration: ${parsed.problems.join("; ")}`);
  }
  return parsed.data;
}
