import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

/** Memory limits of every sandbox process. */
export type SandboxMemory = {
  /** V8 old-space limit: a heap bomb crashes its own workerd process at this size. */
  heapMb: number;
  /** RLIMIT_DATA of the workerd process (about 500 MB of it are V8's own reservations); ArrayBuffer and Wasm bombs fail there. */
  dataLimitMb: number;
};

/** Default limits: a 128 MB heap, 1 GiB of private writable memory per sandbox process. */
export const DEFAULT_SANDBOX_MEMORY: SandboxMemory = { heapMb: 128, dataLimitMb: 1024 };

const WRAPPER = `#!/bin/sh
# workerd for one resource: private memory capped, nothing of the host's environment inherited. The pid written
# first stays workerd's own, as both execs keep it.
[ -z "$SANDBOX_PID_FILE" ] || echo $$ > "$SANDBOX_PID_FILE" || exit 71
ulimit -d "$SANDBOX_DATA_LIMIT_KB" || exit 70
exec env -i TZ=UTC "$SANDBOX_WORKERD_BINARY" "$@"
`;

let wrapperPath: string | undefined;

/**
 * Points miniflare at a wrapper (written once per process into a fresh private temporary directory) that starts
 * workerd with a data-segment limit and an empty environment, and sets the V8 heap limit. Miniflare reads these
 * process-wide settings when it spawns workerd, so one host has one setting. A sandbox that passes
 * `SANDBOX_PID_FILE` in workerd's spawn environment gets workerd's pid written there before workerd starts.
 * @returns the private directory, where sandboxes keep their pid files.
 * @example const dir = configureWorkerd({ heapMb: 128, dataLimitMb: 1024 })
 */
export function configureWorkerd(memory: SandboxMemory): string {
  if (!wrapperPath || !existsSync(wrapperPath)) {
    const dir = mkdtempSync(join(tmpdir(), "resource-host-"));
    wrapperPath = join(dir, "workerd-sandbox.sh");
    writeFileSync(wrapperPath, WRAPPER, { mode: 0o700 });
    process.once("exit", () => rmSync(dir, { recursive: true, force: true }));
  }
  const binary = (createRequire(import.meta.url)("workerd") as { default: string }).default;
  process.env.SANDBOX_WORKERD_BINARY = binary;
  process.env.SANDBOX_DATA_LIMIT_KB = String(Math.floor(memory.dataLimitMb * 1024));
  process.env.MINIFLARE_WORKERD_PATH = wrapperPath;
  process.env.MINIFLARE_WORKERD_V8_FLAGS = `--max-old-space-size=${Math.floor(memory.heapMb)}`;
  return dirname(wrapperPath);
}
