import { HttpError } from "../../http/httpError.ts";

/**
 * Publishes one instance runs at once. Each holds a store connection for its lock (`withLock`) while its stages await
 * the network, and takes one more at a time for its statements: with every connection of the pool (20 on PostgreSQL
 * by default) held by a publish's lock, each waited for another and the store answered nothing again.
 */
export const PUBLISHES_AT_ONCE = 4;

/** Publishes that may wait for a slot; past them a publish is 503 `publish_busy`. */
export const PUBLISHES_WAITING_MAX = 64;

/**
 * Runs publishes at most `atOnce` at a time, the others in turn, in the order they came.
 * @throws {HttpError} 503 `publish_busy` (with Retry-After) when `waitingMax` publishes already wait.
 * @example const slots = createPublishSlots(); const result = await slots.run(() => publishResource(ctx, request))
 */
export function createPublishSlots(atOnce = PUBLISHES_AT_ONCE, waitingMax = PUBLISHES_WAITING_MAX) {
  let running = 0;
  const waiting: (() => void)[] = [];
  return {
    async run<T>(publish: () => Promise<T>): Promise<T> {
      if (running < atOnce) running++;
      else if (waiting.length >= waitingMax)
        throw new HttpError(503, "publish_busy", `${waitingMax} publishes are waiting already; try again shortly`, {
          "Retry-After": "5",
        });
      // A slot given up is handed to the first waiting publish as it is: `running` counts it still.
      else await new Promise<void>((resolve) => waiting.push(resolve));
      try {
        return await publish();
      } finally {
        const next = waiting.shift();
        if (next) next();
        else running--;
      }
    },
  };
}
