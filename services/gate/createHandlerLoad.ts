/** Counts the handler runs of one gate, and lets one run take the handler for itself (see `reproduceFailure`). */
export type HandlerLoad = {
  /** Handler runs started and not yet settled. */
  running(): number;
  /** Resolves once no run holds the handler for itself. */
  open(): Promise<void>;
  /** Runs `work` as one handler run, after any exclusive run has finished, counted until it settles. */
  run<T>(work: () => Promise<T>): Promise<T>;
  /**
   * Runs `work` alone: only when no other run is under way and `ready()` holds, and no other run starts until it
   * settles. Answers `undefined`, without running `work`, when that moment does not come before `deadline` (ms).
   */
  alone<T>(work: () => Promise<T>, ready: () => Promise<boolean>, deadline: number): Promise<T | undefined>;
};

const POLL_MS = 25;

/**
 * Creates the handler load tracker of one gate.
 * @example const load = createHandlerLoad(); await load.run(() => handler(call))
 */
export function createHandlerLoad(): HandlerLoad {
  let running = 0;
  let exclusive: Promise<unknown> | undefined;
  return {
    running: () => running,
    async open() {
      while (exclusive) await exclusive.catch(() => undefined);
    },
    async run(work) {
      while (exclusive) await exclusive.catch(() => undefined);
      running++;
      try {
        return await work();
      } finally {
        running--;
      }
    },
    async alone(work, ready, deadline) {
      while (Date.now() < deadline) {
        if (running === 0 && !exclusive && (await ready().catch(() => false)) && running === 0 && !exclusive) {
          const done = work();
          exclusive = done;
          try {
            return await done;
          } finally {
            exclusive = undefined;
          }
        }
        await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      }
      return undefined;
    },
  };
}
