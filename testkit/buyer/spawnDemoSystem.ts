import { spawn } from "node:child_process";
import type { Hex } from "viem";

/** Where a demo system started by {@link spawnDemoSystem} listens, and how to stop it. */
export type SpawnedDemoSystem = { marketplaceUrl: string; rpcUrl: string; escrow: Hex; resourceId: Hex; stop(): void };

/**
 * Starts the buyer's in-process demo system (`startDemoSystem`) in a child process of its own, since EDR allows one
 * context per process, and resolves once it prints where it listens.
 * @example const demo = await spawnDemoSystem(); ...; demo.stop()
 */
export function spawnDemoSystem(): Promise<SpawnedDemoSystem> {
  const main = new URL("./demoSystemMain.ts", import.meta.url).pathname;
  const child = spawn(process.execPath, [main], { stdio: ["pipe", "pipe", "pipe"] });
  let out = "";
  let err = "";
  return new Promise((resolve, reject) => {
    child.stderr.on("data", (chunk: Buffer) => (err += chunk.toString()));
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      const line = out.split("\n")[0];
      if (!out.includes("\n") || !line) return;
      resolve({ ...JSON.parse(line), stop: () => child.stdin.end() });
    });
    child.on("exit", (code) => reject(new Error(`the demo system exited (${code}): ${err}`)));
  });
}
