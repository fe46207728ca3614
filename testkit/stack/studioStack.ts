import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { StackFile } from "../../services/stack/stackFile.ts";
import { runStack, stackPorts } from "./runStack.ts";

let started: Promise<{ stack: StackFile; stackDir: string; kill(): void }> | undefined;

/**
 * One `npm start` stack shared by the studio's end-to-end suites (test/studio/studio.test.ts runs them in one file):
 * started by the first that asks, stopped after the file, so they pay for one stack start.
 * @example const { stack, stackDir } = await studioStack()
 */
export function studioStack() {
  started ??= (async () => {
    const stackDir = mkdtempSync(join(tmpdir(), "studio-stack-"));
    const running = await runStack({ STACK_DIR: stackDir, ...(await stackPorts()) }, { direct: true });
    return {
      stack: running.stack,
      stackDir,
      kill() {
        running.kill();
        rmSync(stackDir, { recursive: true, force: true });
      },
    };
  })();
  return started;
}

after(async function () {
  if (started !== undefined) (await started.catch(() => undefined))?.kill();
});
