/**
 * V8 flags of the Node services `npm start` runs (facilitator, host, marketplace, studio and Ponder; not the chain,
 * whose work is EDR's, in Rust). V8 optimizes a function once it has run about 3,000 times; a service's per-batch
 * code (one statement or one transaction for many paid calls) then runs unoptimized for its first 15,000 or so paid
 * calls, and the optimizing compiler works through them while the first traffic is served. At 600 calls the JIT has
 * settled within the first few thousand calls (docs/benchmarks.md).
 */
export const SERVICE_NODE_FLAGS = ["--invocation-count-for-turbofan=600"] as const;

/**
 * The command that runs a service's entry point under this Node with {@link SERVICE_NODE_FLAGS}.
 * @example startPart({ name: "host", ...nodeService("services/host/main.ts"), cwd, env, ready, log })
 */
export function nodeService(entry: string): { command: string; args: string[] } {
  return { command: process.execPath, args: [...SERVICE_NODE_FLAGS, entry] };
}
