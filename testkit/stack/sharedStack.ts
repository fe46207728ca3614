import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runStack, stackPorts } from "./runStack.ts";

export type SharedStack = Awaited<ReturnType<typeof start>>;

let started: Promise<SharedStack> | undefined;

/**
 * The shared stack's BACKGROUND_NICENESS: one step, to see it reach every background part without starving them
 * beside the other suites of a test run.
 */
export const SHARED_STACK_NICENESS = 1;

async function start() {
  const stackDir = mkdtempSync(join(tmpdir(), "shared-stack-"));
  const ports = await stackPorts();
  const running = await runStack({
    STACK_DIR: stackDir,
    ...ports,
    BACKGROUND_NICENESS: String(SHARED_STACK_NICENESS),
  });
  return { ...running, stackDir, ports };
}

/**
 * One `npm start` stack, as a user starts it, shared by the end-to-end suites that test/stack/oneStack.test.ts runs in
 * turn in one mocha worker: started by the first that asks, stopped after the file. A stack start costs about 25
 * CPU-seconds; these suites paid for five.
 * @example const { stack, stackDir, ports } = await sharedStack()
 */
export function sharedStack(): Promise<SharedStack> {
  started ??= start();
  return started;
}

after(async function () {
  const shared = await started?.catch(() => undefined);
  shared?.kill();
  if (shared) rmSync(shared.stackDir, { recursive: true, force: true });
});
