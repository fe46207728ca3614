import type { ChildProcess } from "node:child_process";
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { createInterface } from "node:readline";
import type { Readable } from "node:stream";
import { BaseError } from "../protocol/errors.ts";

/** A running workerd process: its pid, its socket's base URL, whether it has exited, and `kill`. */
export type WorkerdProcess = {
  pid: number;
  url: URL;
  /** Resolves when the process has exited, for any reason. */
  exited: Promise<void>;
  /** SIGKILL; resolves once the process is gone. */
  kill(): Promise<void>;
};

/** workerd did not come up: it exited, or named no port in time. */
export class WorkerdStartError extends BaseError {
  override name = "WorkerdStartError";
}

/** Options of one workerd process. */
export type StartWorkerdParameters = {
  /** The capnp text configuration (see `configureWorkerd`); its one socket is named `http`. */
  configFile: string;
  /** RLIMIT_DATA of the process, in MB. */
  dataLimitMb: number;
  startTimeoutMs?: number | undefined;
  /** Each line the process writes to stdout or stderr. */
  onLine?: ((line: string, stream: "stdout" | "stderr") => void) | undefined;
};

const binary = (): string => (createRequire(import.meta.url)("workerd") as { default: string }).default;

/**
 * Runs workerd with its private memory capped and nothing of the host's environment; `exec` keeps the pid. Beside it a
 * watcher reads the pipe this process holds as the wrapper's stdin and kills workerd when it reads the end: when this
 * process ends, however (SIGKILL, a crash), or closes the pipe. Without it an ended host left its workerd processes
 * running, orphaned, with their memory.
 */
const WRAPPER = [
  'ulimit -d "$1" || exit 70',
  "shift",
  "exec 4<&0",
  "(while read -r _; do :; done; kill -9 $$) <&4 4<&- 3>&- >/dev/null 2>&1 &",
  "exec 4<&- </dev/null",
  'exec /usr/bin/env -i TZ=UTC "$@"',
].join("\n");

function lines(stream: Readable | null, onLine: (line: string) => void) {
  if (stream) createInterface({ input: stream }).on("line", onLine);
}

function portOf(child: ChildProcess): Promise<number> {
  return new Promise((resolve, reject) => {
    const control = child.stdio[3] as Readable | undefined;
    if (!control) return reject(new WorkerdStartError("workerd has no control pipe"));
    lines(control, (line) => {
      try {
        const event = JSON.parse(line) as { event?: string; socket?: string; port?: number };
        if (event.event === "listen" && event.socket === "http" && typeof event.port === "number") resolve(event.port);
      } catch {}
    });
  });
}

/**
 * Starts one workerd process serving `configFile`, through `sh` with `ulimit -d` and an empty environment, and waits
 * for the port its `http` socket listens on (workerd reports it on a control pipe).
 * @throws {WorkerdStartError} when workerd exits first or reports no port within `startTimeoutMs`.
 * @example const workerd = await startWorkerd({ configFile, dataLimitMb: 1024 })
 */
export async function startWorkerd(p: StartWorkerdParameters): Promise<WorkerdProcess> {
  const child = spawn(
    "/bin/sh",
    [
      "-c",
      WRAPPER,
      "sh",
      String(Math.floor(p.dataLimitMb * 1024)),
      binary(),
      "serve",
      "--experimental",
      "--control-fd=3",
      p.configFile,
      "config",
    ],
    { stdio: ["pipe", "pipe", "pipe", "pipe"], env: {} },
  );
  // The watcher's pipe (WRAPPER): closed once workerd has exited, so that the watcher ends too.
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once("exit", () => resolve());
  }).then(() => void child.stdin?.destroy());
  const stderr: string[] = [];
  lines(child.stdout, (line) => p.onLine?.(line, "stdout"));
  lines(child.stderr, (line) => {
    if (stderr.length < 20) stderr.push(line.slice(0, 300));
    p.onLine?.(line, "stderr");
  });
  const kill = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    await exited;
  };
  let timer: NodeJS.Timeout | undefined;
  try {
    const port = await Promise.race([
      portOf(child),
      exited.then(() => {
        throw new WorkerdStartError(`workerd exited at start: ${stderr.join(" | ") || "no output"}`);
      }),
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new WorkerdStartError(`workerd named no port within ${p.startTimeoutMs ?? 15_000} ms`)),
          p.startTimeoutMs ?? 15_000,
        );
      }),
    ]);
    if (child.pid === undefined) throw new WorkerdStartError("workerd has no pid");
    return { pid: child.pid, url: new URL(`http://127.0.0.1:${port}`), exited, kill };
  } catch (error) {
    await kill();
    throw error;
  } finally {
    clearTimeout(timer);
  }
}
