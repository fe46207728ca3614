import { z } from "zod";
import { networkTokenProblem } from "../deploy/deployParameters.ts";
import { rpcSettingSchema } from "../http/rpcUrls.ts";
import { parseSettings } from "../keys/parseSettings.ts";
import { TEST_NETWORK } from "../protocol/constants.ts";

const port = (fallback: number) => z.coerce.number().int().min(1).max(65535).default(fallback);
const key = z.string().regex(/^0x[0-9a-fA-F]{64}$/, "must be 0x followed by 64 hex digits");
const address = z.string().regex(/^0x[0-9a-fA-F]{40}$/, "must be 0x followed by 40 hex digits");

/**
 * The key settings of `npm start`: each is raw hex, or a keystore file `NAME_FILE` opened with the password in
 * `NAME_PASSWORD_FILE` (services/keys; `RELAYER_KEYS_FILE` takes several files or a directory).
 */
export const STACK_KEY_SETTINGS = {
  DEPLOYER_KEY: "one",
  RELAYER_KEYS: "list",
  FACILITATOR_KEY: "one",
  PUBLISHER_KEY: "one",
  STUDIO_BUYER_KEY: "one",
} as const;

/** Every setting of `npm start`; the README's settings table is this schema. */
export const stackEnvSchema = z.object({
  STACK_DIR: z.string().min(1).default(".stack"),
  CHAIN_PORT: port(8545),
  FACILITATOR_PORT: port(4020),
  HOST_PORT: port(4030),
  MARKETPLACE_PORT: port(4000),
  INDEXER_PORT: port(42069),
  /** `npm start -- --postgres`: the port of the stack's own PostgreSQL server. */
  POSTGRES_PORT: port(5433),
  /** The embedded chain mines a block per transaction (`auto`) or every 500 ms, the test network's block time. */
  CHAIN_MINING: z.enum(["auto", "interval"]).default("auto"),
  STUDIO_PORT: port(4040),
  /**
   * How much nicer than `npm start` its background parts run (`nice -n`): the chain, the indexer, the marketplace and
   * the studio. The paid path (host, its sandboxes, facilitator) then keeps the CPU when the machine is busy. 0 (the
   * default) runs all parts alike: on a machine that also runs other work, niced parts can wait minutes for a core.
   */
  BACKGROUND_NICENESS: z.coerce.number().int().min(0).max(19).default(0),
  /**
   * How long each part may take to be ready (the marketplace: counted from when the indexer is); one that is not stops
   * the start with its last lines of output. A part alone starts in seconds, but the stack starts four side by side
   * (about 35 CPU-seconds in all); a machine that also runs other heavy work (a CI run's other suites) needs more.
   */
  READY_TIMEOUT_SECONDS: z.coerce.number().int().min(1).max(3600).default(180),
  /** Escrow calls are answered once the debit is recorded (`committed`) or once it is mined (`confirmed`). */
  SETTLEMENT: z.enum(["committed", "confirmed"]).default("committed"),
  /**
   * The facilitator refuses `exact` payments whose treasury share does not pay for their own settlement (`on`, the
   * default: the gates quote at least that amount); `off` settles them at the relayer's loss.
   */
  EXACT_COVERS_SETTLEMENT: z.enum(["on", "off"]).default("on"),
  /**
   * Longest the facilitator holds a committed debit until its batch pays for its gas (seconds). Unset: `0` on the
   * embedded chain (each debit goes out in the next batch, so a call's debit shows on chain and in the revenue within a
   * block or two), the facilitator's default in external mode.
   */
  HOLD_MAX_SECONDS: z
    .string()
    .regex(/^[0-9]{1,5}$/, "must be a whole number of seconds")
    .optional(),
  /**
   * External mode on a named network (`arc-testnet`): fills in `RPC_URL` (unless set), the chain id and the network's
   * USDC as `TOKEN_ADDRESS`; keys and `IDENTITY_ADDRESS` stay explicit.
   */
  NETWORK: z.enum([TEST_NETWORK.name]).optional(),
  /**
   * External mode: a remote chain; the embedded chain is not started. Several endpoints separated by commas: the
   * facilitator fails over between them, every other part and step uses the first.
   */
  RPC_URL: rpcSettingSchema.optional(),
  /** External mode: PostgreSQL for every store; PGlite in STACK_DIR otherwise. */
  DATABASE_URL: z.string().optional(),
  DEPLOYER_KEY: key.optional(),
  RELAYER_KEYS: z.string().optional(),
  FACILITATOR_KEY: key.optional(),
  PUBLISHER_KEY: key.optional(),
  TREASURY_ADDRESS: address.optional(),
  /** External mode: who receives the contracts' admin role (the deployer begins the two-step hand-off to it). */
  ADMIN_ADDRESS: address.optional(),
  TOKEN_ADDRESS: address.optional(),
  IDENTITY_ADDRESS: address.optional(),
  /**
   * Where the deployment record is kept (services/deploy): `STACK_DIR/deployment`, new at each local start; in external
   * mode required, outside the checkout, so a restart (or `npm run deploy` before it) deploys nothing new.
   */
  DEPLOYMENT_DIR: z.string().min(1).optional(),
  PUBLISH_TOKEN: z.string().min(16).optional(),
  HOST_TOKEN: z.string().min(16).optional(),
  /** Bearer token of the studio's HTTP service (random per start when unset). */
  STUDIO_TOKEN: z.string().min(16).optional(),
  /** Who pays the studio's self-tests: the first demo buyer locally; in external mode the studio starts only with it. */
  STUDIO_BUYER_KEY: key.optional(),
  CALLER_AUTH: z.enum(["on", "off"]).optional(),
  CALLER_AUTH_SECRET: z.string().min(32).optional(),
});

/** The validated settings of `npm start`. */
export type StackConfig = z.output<typeof stackEnvSchema>;

/**
 * Reads the stack's settings; a bad value stops the start with every problem named. A local start refuses
 * `DEPLOYMENT_DIR`: it would empty the folder of a real deployment's record. `NETWORK` fills in what the
 * network fixes (its RPC endpoint unless `RPC_URL` names another, its USDC), and refuses a `TOKEN_ADDRESS` that is
 * not the network's USDC or a missing `IDENTITY_ADDRESS` (without it a stablecoin of our own would be deployed there).
 * @example const env = loadStackConfig(process.env)
 */
export function loadStackConfig(env: Record<string, string | undefined>): StackConfig {
  const parsed = parseSettings(stackEnvSchema, env, STACK_KEY_SETTINGS);
  if (!parsed.success) throw new Error(`invalid settings: ${parsed.problems.join("; ")}`);
  const config = parsed.data;
  if (config.NETWORK === undefined && config.RPC_URL === undefined && config.DEPLOYMENT_DIR !== undefined)
    throw new Error(
      `invalid settings: DEPLOYMENT_DIR: external mode's kept deployment record; a local start (no RPC_URL or NETWORK) deploys onto a new chain and empties its record's folder, so it keeps its own in STACK_DIR/deployment: unset DEPLOYMENT_DIR, or set RPC_URL or NETWORK`,
    );
  if (config.NETWORK === undefined) return config;
  const network = TEST_NETWORK;
  const problems = [
    networkTokenProblem(config.NETWORK, config.TOKEN_ADDRESS, "TOKEN_ADDRESS"),
    config.IDENTITY_ADDRESS === undefined &&
      `IDENTITY_ADDRESS: NETWORK=${network.name} needs the address of the network's ERC-8004 identity registry`,
  ].filter((problem): problem is string => typeof problem === "string");
  if (problems.length) throw new Error(`invalid settings: ${problems.join("; ")}`);
  return { ...config, RPC_URL: config.RPC_URL ?? network.rpcUrl, TOKEN_ADDRESS: network.usdc };
}
