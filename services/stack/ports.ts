import { createServer } from "node:net";
import { BaseError } from "../protocol/errors.ts";

/** A port that is already taken: the stack says so and stops, rather than hanging. */
export class PortTakenError extends BaseError {
  override name = "PortTakenError";
}

/** What {@link assertPortFree} rejects with. */
export type AssertPortFreeErrorType = PortTakenError;

/**
 * Resolves when `port` on 127.0.0.1 can be bound, and rejects with a clear message when it cannot.
 * @example await assertPortFree(8545, "CHAIN_PORT")
 */
export function assertPortFree(port: number, setting: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", (error: NodeJS.ErrnoException) =>
      reject(
        new PortTakenError(
          `port ${port} is taken (${error.code}); stop what uses it or set ${setting} to another port`,
        ),
      ),
    );
    probe.listen(port, "127.0.0.1", () => probe.close(() => resolve()));
  });
}
