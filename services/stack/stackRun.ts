import { randomBytes } from "node:crypto";
import { createWriteStream } from "node:fs";
import { join, resolve } from "node:path";
import type { Address, Hex } from "viem";
import { rpcUrlsOf } from "../http/rpcUrls.ts";
import { defined } from "../protocol/defined.ts";
import type { Part, StartPartParameters } from "./childProcess.ts";
import type { ContractAddresses } from "./deployContracts.ts";
import type { StackConfig } from "./loadStackConfig.ts";
import type { PartName } from "./ports.ts";
import { PART_PORT_SETTINGS } from "./ports.ts";
import type { PublishedResource } from "./publishSamples.ts";
import type { StackFile } from "./stackFile.ts";

/** Who deploys, relays, records strikes and publishes, and where fees go. */
export type StackKeys = { publisher: Hex; deployer: Hex; relayers: Hex[]; facilitator: Hex; treasury: Address };

/**
 * One `npm start`: its settings, where each part listens, and what the steps have done so far. Each step reads what
 * earlier steps set (keys, contracts, resources, buyers) and adds its own; `parts` is what a stop takes down.
 */
export type StackRun = {
  root: string;
  /** `performance.now()` when the start began. */
  started: number;
  env: StackConfig;
  /** External mode (`RPC_URL` set): a remote chain, nothing local to start or fund. */
  external: boolean;
  /** The deployment record (services/deploy): DEPLOYMENT_DIR in external mode, else `STACK_DIR/deployment`. */
  deploymentDir: string;
  stackDir: string;
  dataDir: string;
  /** The embedded chain mines every 500 ms once the stack is ready (set-up is mined at once). */
  intervalMining: boolean;
  /** Per-resource caller tokens on the facilitator. */
  callerAuth: boolean;
  /** `rpc`: the chain's endpoint (RPC_URL's first, when it names several: the facilitator takes them all). */
  urls: { rpc: string; indexer: string; facilitator: string; host: string; marketplace: string; studio: string };
  tokens: { host: string; publish: string; studio: string };
  /** Every part started so far, in order. */
  parts: Pick<Part, "name" | "stop" | "ended">[];
  /**
   * Aborted, with the failure, when the start gives up (a part failed, or a stop during the start): every part still
   * starting is killed and fails at once, rather than being waited for.
   */
  abandon: AbortController;
  /** `--postgres`: every store on a PostgreSQL server of the stack's own (STACK_DIR/postgres) instead of PGlite. */
  postgres: boolean;
  say(line: string): void;
  /** A writer of one part's log, `{STACK_DIR}/logs/<name>.log`. */
  logFile(name: string): (line: string) => void;
  /**
   * How a step's part is watched: its name, its log file, progress through `say`, READY_TIMEOUT_SECONDS, its port
   * (free before it is spawned), `abandon`'s signal, and for a background part (the chain, the indexer, the
   * marketplace, the studio; not the paid path) BACKGROUND_NICENESS.
   */
  supervise(name: PartName, role: "paid path" | "background"): PartSupervision;
  bin(name: string): string;
  keys?: StackKeys;
  contracts?: ContractAddresses;
  resources: PublishedResource[];
  buyers: StackFile["buyers"];
  /** Who pays the studio's self-tests; the studio is not started without one. */
  studioBuyer?: string;
};

/** What `StackRun.supervise` gives a step's `startPart`. */
export type PartSupervision = Pick<
  StartPartParameters,
  "name" | "log" | "progress" | "readyTimeoutMs" | "niceness" | "listens" | "signal"
>;

/**
 * The run of `npm start` for validated settings, before any step: URLs from the ports, tokens given or random.
 * @example const run = createStackRun({ root, env, started: performance.now() })
 */
export function createStackRun(p: { root: string; env: StackConfig; started: number; postgres?: boolean }): StackRun {
  const { env, root } = p;
  const external = env.RPC_URL !== undefined;
  const stackDir = resolve(root, env.STACK_DIR);
  const local = (port: number) => `http://127.0.0.1:${port}`;
  const say = (line: string) =>
    process.stdout.write(`[stack ${((performance.now() - p.started) / 1000).toFixed(1).padStart(5)}s] ${line}\n`);
  const logFile = (name: string) => {
    const stream = createWriteStream(join(stackDir, "logs", `${name}.log`), { flags: "w" });
    return (line: string) => stream.write(`${line}\n`);
  };
  const abandon = new AbortController();
  return {
    root,
    started: p.started,
    env,
    external,
    deploymentDir: external && env.DEPLOYMENT_DIR ? resolve(root, env.DEPLOYMENT_DIR) : join(stackDir, "deployment"),
    stackDir,
    dataDir: join(stackDir, "data"),
    intervalMining: !external && env.CHAIN_MINING === "interval",
    callerAuth: (env.CALLER_AUTH ?? (external ? "on" : "off")) === "on",
    urls: {
      rpc: rpcUrlsOf(env.RPC_URL ?? "")[0] ?? local(env.CHAIN_PORT),
      indexer: local(env.INDEXER_PORT),
      facilitator: local(env.FACILITATOR_PORT),
      host: local(env.HOST_PORT),
      marketplace: local(env.MARKETPLACE_PORT),
      studio: local(env.STUDIO_PORT),
    },
    tokens: {
      host: env.HOST_TOKEN ?? randomBytes(24).toString("hex"),
      publish: env.PUBLISH_TOKEN ?? randomBytes(24).toString("hex"),
      studio: env.STUDIO_TOKEN ?? randomBytes(24).toString("hex"),
    },
    parts: [],
    abandon,
    postgres: p.postgres ?? false,
    say,
    logFile,
    supervise(name, role) {
      return {
        name,
        log: logFile(name),
        progress: say,
        readyTimeoutMs: env.READY_TIMEOUT_SECONDS * 1000,
        niceness: role === "background" ? env.BACKGROUND_NICENESS : 0,
        listens: { port: env[PART_PORT_SETTINGS[name]], setting: PART_PORT_SETTINGS[name] },
        signal: abandon.signal,
      };
    },
    bin: (name) => join(root, "node_modules", ".bin", name),
    resources: [],
    buyers: [],
  };
}

/**
 * The contracts a step needs, deployed by an earlier step.
 * @example const { escrow } = contractsOf(run)
 */
export function contractsOf(run: StackRun): ContractAddresses {
  return defined(run.contracts, "contracts (deployed by the deployStack step)");
}

/**
 * The keys a step needs, chosen by an earlier step.
 * @example const { relayers } = keysOf(run)
 */
export function keysOf(run: StackRun): StackKeys {
  return defined(run.keys, "keys (chosen by the chooseKeys step)");
}
