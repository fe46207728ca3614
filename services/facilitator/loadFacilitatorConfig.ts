import { z } from "zod";
import { isLoopbackHost } from "../http/isLoopbackHost.ts";
import { rpcSettingSchema } from "../http/rpcUrls.ts";
import { parseSettings } from "../keys/parseSettings.ts";
import { MAX_AUTHORIZATION_SECONDS } from "../protocol/constants.ts";
import { BaseError } from "../protocol/errors.ts";
import { addressSchema } from "../protocol/schemas/primitives.ts";
import { DEFAULT_RPC_TIMEOUT_MS } from "./observedTransport.ts";

/**
 * Default longest hold of a committed debit (seconds): 50 minutes, below the one-hour window the gates ask for less the
 * buyer SDK's clock margin (30 s) and HOLD_DEADLINE_MARGIN_SECONDS (60 s), so a debit signed for the full window goes
 * out by this cap with minutes to spare for mining; one signed for less goes out at its deadline.
 */
export const DEFAULT_HOLD_MAX_SECONDS = 3_000;

const privateKey = z.string().regex(/^0x[0-9a-fA-F]{64}$/, "must be 0x followed by 64 hex digits");
const flag = z.enum(["0", "1", "true", "false", "on", "off"]).transform((v) => v === "1" || v === "true" || v === "on");

/** The key settings, each also given as a keystore file (`NAME_FILE`, `NAME_PASSWORD_FILE`; services/keys). */
export const FACILITATOR_KEY_SETTINGS = { RELAYER_KEYS: "list", FACILITATOR_KEY: "one" } as const;

/** Everything the facilitator reads from its environment, validated at start-up. */
export const facilitatorEnvSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(4020),
  HOST: z.string().default("127.0.0.1"),
  /**
   * JSON-RPC endpoint of chain 5042002, or several, comma-separated: requests go to the best-ranked endpoint that
   * answers, the others in turn when it fails (observedTransport.ts).
   */
  RPC_URL: rpcSettingSchema,
  ESCROW_ADDRESS: addressSchema,
  REGISTRY_ADDRESS: addressSchema,
  TOKEN_ADDRESS: addressSchema,
  /** The Ponder indexer (its base URL); `GET /revenue/:resourceId` reads the chain-derived projections there. */
  INDEXER_URL: z.url().optional(),
  /**
   * Comma-separated private keys of the relayer pool; each signer has its own nonce lane. Or keystores:
   * `RELAYER_KEYS_FILE` (files or directories) with `RELAYER_KEYS_PASSWORD_FILE` ({@link FACILITATOR_KEY_SETTINGS}).
   */
  RELAYER_KEYS: z.string().transform((v, ctx) => {
    const keys = v
      .split(",")
      .map((k) => k.trim())
      .filter(Boolean);
    for (const key of keys) {
      if (!privateKey.safeParse(key).success) {
        ctx.addIssue({ code: "custom", message: "every relayer key must be 0x followed by 64 hex digits" });
        return z.NEVER;
      }
    }
    if (keys.length === 0) ctx.addIssue({ code: "custom", message: "at least one relayer key is required" });
    return keys as `0x${string}`[];
  }),
  /** Key holding FACILITATOR_ROLE on the registry, used to record strikes; defaults to the first relayer key. */
  FACILITATOR_KEY: privateKey.optional(),
  DATABASE_URL: z.string().optional(),
  DATA_DIR: z.string().default(".data/facilitator"),
  DATABASE_SCHEMA: z.string().default("facilitator"),
  /** Caller tokens on every route but health, readiness and metrics: on unless turned off, and off only on loopback. */
  CALLER_AUTH: flag.default(true),
  CALLER_AUTH_SECRET: z.string().min(32, "must be at least 32 characters").optional(),
  NODE_ENV: z.string().default("development"),
  /** Debit batching; unset, they follow SETTLEMENT (batchDefaults). */
  BATCH_WINDOW_MS: z.coerce.number().int().min(0).optional(),
  BATCH_MAX_ITEMS: z.coerce.number().int().min(1).max(256).optional(),
  RECEIPT_TIMEOUT_MS: z.coerce.number().int().min(100).default(30_000),
  SETTLE_WAIT_MS: z.coerce.number().int().min(0).default(10_000),
  /**
   * `committed` (default): an escrow settle is recorded durably and answered at once, the relayer mines it after;
   * `confirmed`: every settle waits for its debit to be mined. `exact` payments always wait for their transfer.
   */
  SETTLEMENT: z.enum(["committed", "confirmed"]).default("committed"),
  /**
   * Whether an `exact` payment must pay for its own settlement: on (default), verify refuses one whose treasury share
   * is below what its `settleExact` costs at the current base fee (SETTLEMENT_GAS_EXACT), which only a payment signed
   * against an older, lower quote is (the gate quotes at least that amount, `GET /pricing/exact`); off, the relayer
   * settles every `exact` payment, even one that costs it more gas than the treasury earns.
   */
  EXACT_COVERS_SETTLEMENT: flag.default(true),
  /**
   * Committed settlement holds each debit (relayer/holdPolicy.ts) until the treasury share of its batch covers the
   * batch's expected gas at the current fee (base fee and priority fee) with this margin, in basis points, or until
   * HOLD_MAX_SECONDS or HOLD_DEADLINE_MARGIN_SECONDS force it out. SETTLEMENT=confirmed holds nothing. 0 by default: the
   * listing's price already carries the operator's margin (the price floor's SETTLEMENT_MARGIN_BPS over its gas per
   * debit), and a hold that asked for it again over a batch's own gas would never find a batch that pays at the floor.
   */
  HOLD_MARGIN_BPS: z.coerce.number().int().min(0).max(100_000).default(0),
  /**
   * Longest a committed debit is held (seconds); 0 turns holding off: every debit goes out in the next batch. The
   * default, 3000, is below the hour-long window the gates ask for (and the buyer SDK signs, less its clock margin)
   * minus HOLD_DEADLINE_MARGIN_SECONDS, so a quiet resource's debits are gathered for 50 minutes before a send is
   * forced; buyers take a committed receipt as final (docs/protocol.md, "Held debits").
   */
  HOLD_MAX_SECONDS: z.coerce.number().int().min(0).max(MAX_AUTHORIZATION_SECONDS).default(DEFAULT_HOLD_MAX_SECONDS),
  /**
   * A held debit goes out once its authorization has this many seconds left (`validBefore` - now): the time kept to
   * mine it, fee-bumped replacements included.
   */
  HOLD_DEADLINE_MARGIN_SECONDS: z.coerce.number().int().min(0).max(MAX_AUTHORIZATION_SECONDS).default(60),
  /** Seconds a settle holds the right to drive its debit; after a crash another instance (or the restart) takes over. */
  SETTLE_LEASE_SECONDS: z.coerce.number().int().min(1).default(60),
  /**
   * Seconds an instance leases a relayer signer (renewed every third of it): instances sharing RELAYER_KEYS send from
   * a signer one at a time, and a dead instance's signers are taken over once its leases expire.
   */
  SIGNER_LEASE_SECONDS: z.coerce.number().int().min(1).max(600).default(30),
  /** The escrow's first block: the escrow book (escrowBook/) replays the escrow's events from there. */
  ESCROW_START_BLOCK: z.coerce.bigint().min(0n).default(0n),
  /**
   * Seconds the escrow book may go without reaching the chain's head before verify refuses (503) rather than trust
   * it; far below the escrow's one-day withdrawal delay, which is what makes a slightly old book safe.
   */
  ESCROW_BOOK_MAX_LAG_SECONDS: z.coerce.number().int().min(1).max(3_600).default(60),
  /**
   * Blocks below the chain's head the escrow book follows to: a provider whose nodes lag one another (a load-balanced
   * RPC) may answer a head before it has that block's logs. 0 only for a chain served by one node that mines a block per
   * transaction (the embedded chain of `npm start`), whose newest block a margin would keep from the book.
   */
  ESCROW_BOOK_MARGIN_BLOCKS: z.coerce.number().int().min(0).max(64).default(2),
  LOW_GAS_WEI: z.coerce.bigint().default(10n ** 16n),
  /** Highest maxFeePerGas (wei) the relayer pays; above it sends wait and verify refuses new escrow payments. */
  MAX_FEE_PER_GAS: z.coerce.bigint().positive().optional(),
  /** Most blocks one `eth_getLogs` request spans; public RPCs cap the range, so longer searches are paged. */
  LOG_RANGE_BLOCKS: z.coerce.number().int().min(1).default(1_000),
  /**
   * How long one JSON-RPC request waits for its answer (ms) before it counts as the endpoint's failure (and, with
   * several endpoints in RPC_URL, goes to the next); the relayer's requests wait twice as long. Raise it for a slow
   * provider whose large `eth_getLogs` ranges take seconds; lower it to fail over sooner.
   */
  RPC_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(DEFAULT_RPC_TIMEOUT_MS),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
});

/**
 * Batching when BATCH_WINDOW_MS / BATCH_MAX_ITEMS are unset. Confirmed: a 20 ms window, 64 debits, a batch as soon
 * as the last one is broadcast (every settle waits for its batch). Committed: nobody waits for the mining, so at
 * most one batch per 200 ms unless 128 debits are queued: fewer, fuller blocks for the chain and the indexer.
 */
export const BATCH_DEFAULTS = {
  confirmed: { windowMs: 20, maxItems: 64 },
  committed: { windowMs: 200, maxItems: 128 },
} as const;

/**
 * The batching a configuration runs with: its own settings, else the defaults of its SETTLEMENT; committed also
 * spaces batches by the window (createRelayer's minBatchIntervalMs).
 */
export function batchSettings(config: FacilitatorConfig): {
  windowMs: number;
  maxItems: number;
  minIntervalMs: number;
} {
  const defaults = BATCH_DEFAULTS[config.SETTLEMENT];
  const windowMs = config.BATCH_WINDOW_MS ?? defaults.windowMs;
  return {
    windowMs,
    maxItems: config.BATCH_MAX_ITEMS ?? defaults.maxItems,
    minIntervalMs: config.SETTLEMENT === "committed" ? windowMs : 0,
  };
}

/** The facilitator's validated configuration. */
export type FacilitatorConfig = z.output<typeof facilitatorEnvSchema>;

/** Refused configuration, with every problem named. */
export class FacilitatorConfigError extends BaseError {
  override name = "FacilitatorConfigError";
}

/** What {@link loadFacilitatorConfig} throws. */
export type LoadFacilitatorConfigErrorType = FacilitatorConfigError;

/**
 * Reads and validates the facilitator configuration; bad configuration fails here, at start-up.
 * @example const config = loadFacilitatorConfig(process.env)
 */
export function loadFacilitatorConfig(env: Record<string, string | undefined>): FacilitatorConfig {
  const parsed = parseSettings(facilitatorEnvSchema, env, FACILITATOR_KEY_SETTINGS);
  if (!parsed.success) {
    throw new FacilitatorConfigError(`invalid facilitator configuration: ${parsed.problems.join("; ")}`);
  }
  const config = parsed.data;
  if (config.CALLER_AUTH && !config.CALLER_AUTH_SECRET) {
    throw new FacilitatorConfigError(
      "CALLER_AUTH is on (the default) but CALLER_AUTH_SECRET is not set; set a secret, or CALLER_AUTH=off on a loopback HOST; refusing to start",
    );
  }
  if (!config.CALLER_AUTH && !isLoopbackHost(config.HOST)) {
    throw new FacilitatorConfigError(
      `CALLER_AUTH=off is refused on HOST ${config.HOST}: without caller tokens anyone who reaches the facilitator can settle, release with a strike or read results; turn auth off only on a loopback HOST`,
    );
  }
  return config;
}
