import { Worker } from "node:worker_threads";
import type { SchemaOutcome } from "./schemaCheck.ts";

/** Longest one value's check may run in the worker before it is stopped and answered `timeout` (ms). */
export const SCHEMA_CHECK_TIMEOUT_MS = 1_000;

/**
 * Longest the worker may take to start and compile a schema before a check begins (ms): neither depends on the value,
 * and a thread starting on a loaded machine takes seconds, which must not count against a check's own deadline.
 */
const SCHEMA_CHECK_START_MS = 60_000;

/** Request checks that may wait for the worker at once; one more is answered `busy` (the gate's 503). */
export const SLOW_CHECK_QUEUE_MAX = 64;

type Job = { id: number; key: string; value: unknown; resolve: (outcome: SchemaOutcome) => void };

let worker: Worker | undefined;
/** Jobs sent to the worker, in order: it answers them in that order, so the first is the one it runs. */
const sent: Job[] = [];
let deadline: NodeJS.Timeout | undefined;
let nextId = 0;

/**
 * Starts the deadline of the job at the head: SCHEMA_CHECK_START_MS until the worker says it checks its value
 * (`checking`), then SCHEMA_CHECK_TIMEOUT_MS.
 */
function watchHead(checking = false): void {
  clearTimeout(deadline);
  deadline = undefined;
  if (sent.length === 0) return;
  deadline = setTimeout(stopHead, checking ? SCHEMA_CHECK_TIMEOUT_MS : SCHEMA_CHECK_START_MS);
  deadline.unref();
}

/** The running check passed its deadline: the worker is stopped, the check answered `timeout`, the rest sent again. */
function stopHead(): void {
  const head = sent.shift();
  const stopped = worker;
  worker = undefined;
  void stopped?.terminate();
  head?.resolve({
    kind: "timeout",
    message: `the value took longer than ${SCHEMA_CHECK_TIMEOUT_MS} ms to check against the schema`,
  });
  const rest = sent.splice(0);
  for (const job of rest) send(job);
}

/**
 * Starts the process's worker thread now, if it is not running, so that the first check does not wait for it to load.
 * @example startSlowSchemaChecks() // when a gate with a slow schema is built
 */
export function startSlowSchemaChecks(): void {
  started();
}

function started(): Worker {
  if (worker) return worker;
  const thread = new Worker(new URL("./slowSchemaCheckThread.ts", import.meta.url));
  thread.unref();
  thread.on("message", ({ id, outcome }: { id: number; outcome?: SchemaOutcome }) => {
    if (thread !== worker || sent[0]?.id !== id) return;
    if (!outcome) return watchHead(true);
    sent.shift()?.resolve(outcome);
    watchHead();
  });
  // A thread that ends without being stopped (a schema that does not compile there): every check it held fails.
  thread.on("error", () => undefined);
  thread.on("exit", () => {
    if (thread !== worker) return;
    worker = undefined;
    clearTimeout(deadline);
    for (const job of sent.splice(0))
      job.resolve({ kind: "timeout", message: "the schema check stopped before it answered" });
  });
  worker = thread;
  return thread;
}

function send(job: Job): void {
  started().postMessage({ id: job.id, key: job.key, value: job.value });
  sent.push(job);
  if (sent.length === 1) watchHead();
}

/**
 * Checks `value` against the schema whose JSON text is `key` in a worker thread shared by the process, one value at a
 * time, each under SCHEMA_CHECK_TIMEOUT_MS from when the thread, started and the schema compiled, begins checking it:
 * past it the thread is stopped (which stops the check
 * wherever it is) and started again for the checks behind it. `bounded`: answered `busy` at once when
 * SLOW_CHECK_QUEUE_MAX checks wait; `always`: queued regardless (a paid call's response).
 * @example await checkOffThread(JSON.stringify(schema), body, "bounded")
 */
export function checkOffThread(key: string, value: unknown, queue: "bounded" | "always"): Promise<SchemaOutcome> {
  if (queue === "bounded" && sent.length >= SLOW_CHECK_QUEUE_MAX)
    return Promise.resolve({ kind: "busy", message: "too many checks of slow schemas are waiting" });
  return new Promise((resolve) => send({ id: nextId++, key, value, resolve }));
}
