import { join, resolve } from "node:path";
import { withoutRpcUrls } from "../http/rpcUrls.ts";
import type { StackConfig } from "./loadStackConfig.ts";
import { loadStackConfig } from "./loadStackConfig.ts";
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

/**
 * Runs `npm start`'s steps in order (services/stack/steps/), then keeps the stack up until SIGINT or SIGTERM, until
 * whatever started it goes away (exit 0), or until a part ends on its own (exit 1, naming it), and stops every part,
 * last started first.
 * @example await startStack({ postgres: false })
 */
export async function startStack(options: { postgres: boolean }): Promise<void> {
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
    postgres: options.postgres,
  });

  let stopping: Promise<never> | undefined;
  /** Stops every part, last started first, then exits; a second call (SIGTERM, then our parent going away) waits for the first. */
  function stop(code: number): Promise<never> {
    stopping ??= (async () => {
      run.say("stopping");
      run.abandon.abort(new Error("the stack is stopping"));
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
    // A failed request's error names its URL, which may hold the provider's API key: printed with its host only.
    process.stderr.write(`[stack] failed: ${withoutRpcUrls(error as Error, env.RPC_URL ?? run.urls.rpc).message}\n`);
    await stop(1);
  }
  // A part that ends while the stack runs leaves the others answering for it (a marketplace without its indexer, a
  // gate without its facilitator): the stack stops whole and says which, as a supervisor would see it.
  for (const part of run.parts)
    void part.ended.then((how) => {
      if (stopping !== undefined) return;
      const log = join(run.stackDir, "logs", `${part.name}.log`);
      process.stderr.write(`[stack] failed: the ${part.name} ${how} while the stack ran (its output: ${log})\n`);
      void stop(1);
    });
}
