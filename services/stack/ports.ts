import { createServer } from "node:net";
import { BaseError } from "../protocol/errors.ts";
import type { StackConfig } from "./loadStackConfig.ts";

/** The setting of the port on 127.0.0.1 that each part `npm start` runs listens on. */
export const PART_PORT_SETTINGS = {
  chain: "CHAIN_PORT",
  indexer: "INDEXER_PORT",
  facilitator: "FACILITATOR_PORT",
  host: "HOST_PORT",
  marketplace: "MARKETPLACE_PORT",
  studio: "STUDIO_PORT",
} as const satisfies Record<string, keyof StackConfig>;

/** A part `npm start` runs as a child process. */
export type PartName = keyof typeof PART_PORT_SETTINGS;

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
