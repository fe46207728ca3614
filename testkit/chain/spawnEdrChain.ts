import { spawn } from "node:child_process";
import type { EdrChain, StartEdrChainParameters } from "../../services/chain/startEdrChain.ts";
import { stopChild } from "../../services/stack/childProcess.ts";

/** A chain started by spawnEdrChain: its RPC URL, a JSON-RPC request over it, and a stop. */
export type SpawnedEdrChain = Pick<EdrChain, "rpcUrl" | "request" | "close">;

/**
 * Starts the embedded chain (`startEdrChain`) in a child process of its own: the test process already holds
 * Hardhat's EDR context, and EDR wants one per process (a second one prints a tracing error into the test output).
 * @example const chain = await spawnEdrChain({ funded: [{ key, balance: 10n ** 24n }], mining: "auto" })
 */
export function spawnEdrChain(p: Pick<StartEdrChainParameters, "funded" | "mining">): Promise<SpawnedEdrChain> {
  const params = { ...p, funded: p.funded.map(({ key, balance }) => ({ key, balance: balance.toString() })) };
  const child = spawn(process.execPath, [new URL("./edrChainMain.ts", import.meta.url).pathname], {
    env: { ...process.env, EDR_CHAIN: JSON.stringify(params) },
    stdio: ["ignore", "pipe", "pipe"],
  });
  return new Promise((resolve, reject) => {
    let out = "";
    let err = "";
    child.stderr.on("data", (chunk: Buffer) => (err += chunk.toString()));
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      const line = out.split("\n")[0];
      if (!out.includes("\n") || !line) return;
      const rpcUrl = line.trim();
      resolve({
        rpcUrl,
        async request(method: string, params: unknown[] = []) {
          const res = await fetch(rpcUrl, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
          });
          const body = (await res.json()) as { result?: unknown; error?: { message: string } };
          if (body.error) throw new Error(`${method}: ${body.error.message}`);
          return body.result;
        },
        close: () => stopChild(child),
      });
    });
    child.once("exit", (code) => reject(new Error(`the chain exited with ${code}: ${err}`)));
  });
}
