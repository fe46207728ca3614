import type { ChildProcess } from "node:child_process";
import { spawn } from "node:child_process";
import { createFacilitator } from "../../services/facilitator/createFacilitator.ts";
import type { Clock } from "../../services/facilitator/facilitatorContext.ts";
import { loadFacilitatorConfig } from "../../services/facilitator/loadFacilitatorConfig.ts";
import type { LocalChain } from "../chain/localChain.ts";
import { devKey, ROLE } from "../chain/localChain.ts";

/** A clock tests can move; starts at the chain's wall clock. */
export function manualClock(start = Math.floor(Date.now() / 1000)): Clock & { advance(seconds: number): void } {
  let now = start;
  return {
    now: () => now,
    advance(seconds) {
      now += seconds;
    },
  };
}

/** The settings every test facilitator shares: any free port, the local chain's contracts and development keys. */
export function facilitatorEnv(chain: Pick<LocalChain, "rpcUrl" | "addresses">): Record<string, string> {
  return {
    PORT: "0",
    RPC_URL: chain.rpcUrl,
    ESCROW_ADDRESS: chain.addresses.escrow,
    REGISTRY_ADDRESS: chain.addresses.registry,
    TOKEN_ADDRESS: chain.addresses.token,
    RELAYER_KEYS: devKey(ROLE.relayer),
    FACILITATOR_KEY: devKey(ROLE.facilitator),
    // Tests listen on 127.0.0.1 only, where auth may be off; tests of caller auth turn it on.
    CALLER_AUTH: "off",
    // These tests assert what the chain holds once a settle answers; committed settlement (the product's default)
    // has its own tests, which set SETTLEMENT=committed.
    SETTLEMENT: "confirmed",
    // The local chain is one node that mines a block per transaction: nothing lags its head, and a margin would keep
    // its newest block (a deposit just made) from the escrow book until more transactions come. Tests of a lagging
    // RPC set one.
    ESCROW_BOOK_MARGIN_BLOCKS: "0",
    // Committed debits go out in the next batch, as tests that await their mining expect: holding them until their
    // batch pays for itself (the product's default) would make those tests wait. Tests of holding set their own.
    HOLD_MAX_SECONDS: "0",
  };
}

/**
 * Starts a facilitator on a free port against a local chain, PGlite in memory unless DATABASE_URL is given.
 * @example const facilitator = await startFacilitator(chain, { env: { BATCH_WINDOW_MS: "5" } })
 */
export async function startFacilitator(
  chain: Pick<LocalChain, "rpcUrl" | "addresses">,
  options: { env?: Record<string, string>; clock?: Clock; backgroundIntervalMs?: number } = {},
) {
  const config = loadFacilitatorConfig({
    ...facilitatorEnv(chain),
    DATA_DIR: "memory://",
    LOG_LEVEL: "silent",
    RECEIPT_TIMEOUT_MS: "5000",
    SETTLE_WAIT_MS: "3000",
    ...options.env,
  });
  return createFacilitator(config, { clock: options.clock, backgroundIntervalMs: options.backgroundIntervalMs ?? 100 });
}

/** POSTs JSON and returns status, headers and the parsed body. */
export async function postJson(url: string, body: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = text;
  }
  return { status: response.status, headers: response.headers, body: json as any };
}

/** GETs and returns status and the parsed body. */
export async function getJson(url: string, headers: Record<string, string> = {}) {
  const response = await fetch(url, { headers });
  const text = await response.text();
  let json: unknown = text;
  try {
    json = JSON.parse(text);
  } catch {}
  return { status: response.status, headers: response.headers, body: json as any };
}

/**
 * Starts `node services/facilitator/main.ts` as a child process and resolves with its URL once it listens, and what it
 * has written to stdout and stderr so far (`output()`); rejects with that output if it exits first.
 */
export function spawnFacilitator(
  env: Record<string, string>,
): Promise<{ child: ChildProcess; url: string; output: () => string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["services/facilitator/main.ts"], {
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`facilitator did not start: ${out}`));
    }, 90_000);
    child.stdout!.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      const match = /"port":(\d+)/.exec(out);
      if (match) {
        clearTimeout(timer);
        resolve({ child, url: `http://127.0.0.1:${match[1]}`, output: () => out });
      }
    });
    child.stderr!.on("data", (chunk: Buffer) => (out += chunk.toString()));
    child.once("exit", (code) => reject(new Error(`facilitator exited with ${code}: ${out}`)));
  });
}
