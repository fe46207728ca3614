import { createHash } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { shardDispatcherSource } from "./shardDispatcher.ts";

/** Memory limits of every sandbox process. */
export type SandboxMemory = {
  /** V8 old-space limit of each isolate: a heap bomb crashes its own workerd process at this size. */
  heapMb: number;
  /**
   * RLIMIT_DATA of a workerd process holding one handler (about 500 MB of it are V8's own reservations); a process
   * that may hold more gets `DATA_MB_PER_HANDLER` more per handler. An allocation larger than the room left fails with
   * a `RangeError`; one that finds no room for V8's own pages (1 MB buffers reach that point) ends the process.
   */
  dataLimitMb: number;
};

/** Default limits: a 128 MB heap, 1 GiB of private writable memory for a process of one handler. */
export const DEFAULT_SANDBOX_MEMORY: SandboxMemory = { heapMb: 128, dataLimitMb: 1024 };

/** Private writable memory V8 reserves for each further isolate of a process (about 2.5 MB measured), with room. */
export const DATA_MB_PER_HANDLER = 4;

/** What one shard's workerd process is configured with. */
export type WorkerdConfigParameters = {
  /** Outbound network of every handler of the shard (workerd allow-list); empty: none at all. */
  allowNetwork: readonly string[];
  heapMb: number;
};

let directory: string | undefined;

/**
 * The private directory (created once per host process, removed at exit) that holds the dispatcher module and the
 * shards' configurations.
 * @example const dir = workerdDirectory()
 */
export function workerdDirectory(): string {
  if (!directory) {
    const dir = mkdtempSync(join(tmpdir(), "resource-host-"));
    writeFileSync(join(dir, "dispatcher.js"), shardDispatcherSource(), { mode: 0o600 });
    process.once("exit", () => rmSync(dir, { recursive: true, force: true }));
    directory = dir;
  }
  return directory;
}

/**
 * Writes the workerd configuration (capnp text) of a shard: the dispatcher worker with a Worker Loader, the shard's
 * outbound network service (only when it allows something), one HTTP socket on 127.0.0.1 with a port of the kernel's
 * choosing, and the V8 flags (heap limit, and `--expose-gc` so that a retired handler's isolate is freed at once).
 * @returns the path of the configuration file.
 * @example const file = configureWorkerd({ allowNetwork: [], heapMb: 128 })
 */
export function configureWorkerd(p: WorkerdConfigParameters): string {
  const dir = workerdDirectory();
  const network = p.allowNetwork.length > 0;
  const config = `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [
    ( name = "dispatcher",
      worker = (
        modules = [(name = "dispatcher.js", esModule = embed "dispatcher.js")],
        compatibilityDate = "2025-01-01",
        bindings = [
          (name = "LOADER", workerLoader = ())${network ? `,\n          (name = "NETWORK", service = "network")` : ""}
        ],
        globalOutbound = "none",
      )
    ),
    (name = "none", network = (allow = [])),${network ? `\n    (name = "network", network = (allow = [${p.allowNetwork.map((entry) => JSON.stringify(entry)).join(", ")}])),` : ""}
  ],
  sockets = [(name = "http", address = "127.0.0.1:0", http = (), service = "dispatcher")],
  v8Flags = ["--expose-gc", "--max-old-space-size=${Math.floor(p.heapMb)}"],
);
`;
  const file = join(dir, `shard-${createHash("sha256").update(config).digest("hex").slice(0, 16)}.capnp`);
  writeFileSync(file, config, { mode: 0o600 });
  return file;
}
