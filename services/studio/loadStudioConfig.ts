import { z } from "zod";
import { parseSettings } from "../keys/parseSettings.ts";
import { DRAFT_TTL_MS } from "./server/draftStore.ts";

const address = z.string().regex(/^0x[0-9a-fA-F]{40}$/, "must be 0x followed by 40 hex digits");
const privateKey = z.string().regex(/^0x[0-9a-fA-F]{64}$/, "must be 0x followed by 64 hex digits");

/**
 * The keys `npm run studio` reads (raw hex, or keystores through `NAME_FILE`): the creator's and the buyer's that pays
 * the self-test. Each may be unset: the stack's development creator and first demo buyer stand in on the local chain.
 */
export const studioCliKeysSchema = z.object({
  CREATOR_KEY: privateKey.optional(),
  STUDIO_BUYER_KEY: privateKey.optional(),
});

/** Settings of the studio's HTTP service (`node services/studio/main.ts`). */
export const studioEnvSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(4040),
  HOST: z.string().default("127.0.0.1"),
  /** Bearer token of every route but /health; unset refuses every request. */
  STUDIO_TOKEN: z.string().min(16).optional(),
  HOST_URL: z.url(),
  HOST_TOKEN: z.string().min(16),
  MARKETPLACE_URL: z.url(),
  PUBLISH_TOKEN: z.string().min(16),
  FACILITATOR_URL: z.url(),
  RPC_URL: z.url(),
  TOKEN_ADDRESS: address,
  ESCROW_ADDRESS: address,
  REGISTRY_ADDRESS: address,
  /**
   * The buyer that pays each self-test (it needs an escrow balance). Or a keystore: `STUDIO_BUYER_KEY_FILE` with
   * `STUDIO_BUYER_KEY_PASSWORD_FILE`.
   */
  STUDIO_BUYER_KEY: privateKey,
  /** How long a verified, failed or listed draft is kept, at most 50 minutes (the creator's signatures last an hour). */
  STUDIO_DRAFT_TTL_SECONDS: z.coerce
    .number()
    .int()
    .min(60)
    .max(3_000)
    .default(DRAFT_TTL_MS / 1000),
  LOG_LEVEL: z.string().default("info"),
});

/** The validated settings of the studio service. */
export type StudioConfig = z.output<typeof studioEnvSchema>;

/**
 * Reads the studio service's settings; a bad value stops the start with every problem named.
 * @example const config = loadStudioConfig(process.env)
 */
export function loadStudioConfig(env: Record<string, string | undefined>): StudioConfig {
  const parsed = parseSettings(studioEnvSchema, env, { STUDIO_BUYER_KEY: "one" });
  if (!parsed.success) throw new Error(`invalid settings: ${parsed.problems.join("; ")}`);
  return parsed.data;
}
