import { isAbsolute, relative, resolve } from "node:path";
import type { Hex } from "viem";
import { z } from "zod";
import { parseSettings } from "../keys/parseSettings.ts";
import { TEST_NETWORK } from "../protocol/constants.ts";
import { isDevKey } from "../stack/devAccounts.ts";
import { DeployError } from "./deployError.ts";

const key = z.string().regex(/^0x[0-9a-fA-F]{64}$/, "must be 0x followed by 64 hex digits");

/** The settings of `npm run deploy` and `npm run check-deployment`, from the environment. */
export const deployEnvSchema = z.object({
  /** A named network (`arc-testnet`): its RPC endpoint unless RPC_URL names another, its USDC as the token. */
  NETWORK: z.enum([TEST_NETWORK.name]).optional(),
  /** The chain's JSON-RPC endpoint (chain 5042002). */
  RPC_URL: z.url().optional(),
  /** Who deploys (`npm run deploy` only); or DEPLOYER_KEY_FILE with DEPLOYER_KEY_PASSWORD_FILE. */
  DEPLOYER_KEY: key.optional(),
  /** Where the deployment record is kept, outside the checkout: a rerun with the same record deploys nothing. */
  DEPLOYMENT_DIR: z
    .string({ error: "required: the directory of the deployment record, outside the checkout" })
    .min(1, "required: the directory of the deployment record, outside the checkout"),
  /** Most blocks one `eth_getLogs` spans when the role events are read (public RPCs cap the range). */
  LOG_RANGE_BLOCKS: z.coerce.number().int().min(1).default(10_000),
});

/** The validated settings, with the RPC endpoint resolved and the record's directory absolute. */
export type DeployConfig = Omit<z.output<typeof deployEnvSchema>, "RPC_URL" | "DEPLOYER_KEY"> & {
  RPC_URL: string;
  DEPLOYER_KEY?: Hex;
};

/**
 * Why a deployment record may not be kept in `dir`: inside the checkout, a fresh checkout or container would not find
 * it and would deploy new contracts.
 * @example const problem = checkoutProblem(dir, root)
 */
export function checkoutProblem(dir: string, root: string): string | undefined {
  const path = relative(resolve(root), resolve(dir));
  if (path.startsWith("..") || isAbsolute(path)) return undefined;
  return `DEPLOYMENT_DIR: ${resolve(dir)} is inside the checkout; keep the record where a fresh checkout or container finds it`;
}

/**
 * Reads the deploy commands' settings; `needsKey` for `npm run deploy`. A record inside the checkout is refused
 * (a fresh checkout would deploy new contracts), and so is a well-known development key.
 * @throws {DeployError} naming every problem.
 * @example const config = loadDeployConfig(process.env, { root, needsKey: true })
 */
export function loadDeployConfig(
  env: Record<string, string | undefined>,
  p: { root: string; needsKey: boolean },
): DeployConfig {
  const parsed = parseSettings(deployEnvSchema, env, { DEPLOYER_KEY: "one" });
  const config = parsed.success ? parsed.data : undefined;
  // The requirements below are checked whether or not the schema passed, so that one run names every problem.
  const rpcUrl = env.RPC_URL ?? (env.NETWORK === TEST_NETWORK.name ? TEST_NETWORK.rpcUrl : undefined);
  const keyGiven = env.DEPLOYER_KEY !== undefined || env.DEPLOYER_KEY_FILE !== undefined;
  const problems = [
    ...(parsed.success ? [] : parsed.problems),
    rpcUrl === undefined && "RPC_URL: required (or NETWORK=arc-testnet for the test network's own endpoint)",
    p.needsKey && !keyGiven && "DEPLOYER_KEY: required (or DEPLOYER_KEY_FILE with DEPLOYER_KEY_PASSWORD_FILE)",
    config?.DEPLOYER_KEY !== undefined &&
      isDevKey(config.DEPLOYER_KEY) &&
      "DEPLOYER_KEY: a well-known development key; refusing it for a deployment",
    p.needsKey && env.DEPLOYMENT_DIR && checkoutProblem(env.DEPLOYMENT_DIR, p.root),
  ].filter((problem): problem is string => typeof problem === "string");
  if (problems.length || !config) throw new DeployError(`invalid settings: ${problems.join("; ")}`);
  const dir = resolve(config.DEPLOYMENT_DIR);
  return {
    ...config,
    RPC_URL: rpcUrl as string,
    DEPLOYMENT_DIR: dir,
    DEPLOYER_KEY: config.DEPLOYER_KEY as Hex | undefined,
  };
}
