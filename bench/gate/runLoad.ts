import type { ChildProcess } from "node:child_process";
import { fork } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { LoadResult, LoadSpec } from "./benchLoad.ts";

const running = new Map<ChildProcess, string>();

/**
 * Runs one load of `npm run bench:gate` in a process of its own (bench/gate/benchLoad.ts, autocannon), so that the
 * load generator shares no event loop with what it measures.
 * @example const result = await runLoad({ url, connections: 32, amount: 2000, body, payments })
 */
export function runLoad(spec: LoadSpec): Promise<LoadResult> {
  const dir = mkdtempSync(join(tmpdir(), "bench-gate-"));
  const file = join(dir, "spec.json");
  writeFileSync(file, JSON.stringify(spec));
  return new Promise((resolve, reject) => {
    const child = fork(fileURLToPath(new URL("./benchLoad.ts", import.meta.url)), [file], {
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    });
    running.set(child, dir);
    child.once("message", (result) => resolve(result as LoadResult));
    child.once("exit", (code) => {
      running.delete(child);
      rmSync(dir, { recursive: true, force: true });
      if (code !== 0) reject(new Error(`the load generator exited with ${code}`));
    });
  });
}

/** Kills every load generator still running and removes its files (for an interrupted benchmark). */
export function killLoads(): void {
  for (const [child, dir] of running) {
    child.kill("SIGKILL");
    rmSync(dir, { recursive: true, force: true });
  }
}
