import type { StackRun } from "../stackRun.ts";
import { startFacilitator } from "./startFacilitator.ts";
import { startHost } from "./startHost.ts";
import { startIndexer } from "./startIndexer.ts";
import { startMarketplace } from "./startMarketplace.ts";

/** The services started side by side, in the order their parts are recorded (and stopped in reverse). */
const SERVICES = ["indexer", "facilitator", "host", "marketplace"];

/**
 * Starts the indexer, the facilitator, the host and the marketplace side by side: each knows the others only by
 * URL (fixed before any starts) and waits for what it needs itself (the marketplace is ready once the indexer is, and
 * its deadline counts from then), so none has to wait for another's start; one after the other they took about half
 * a minute more. Every part that
 * started is recorded, in the order above, before a failure of another is reported, so a stop takes down all of
 * them.
 * @example await startServices(run)
 */
export async function startServices(run: StackRun): Promise<void> {
  const before = run.parts.length;
  const indexer = startIndexer(run);
  const outcomes = await Promise.allSettled([
    indexer,
    startFacilitator(run),
    startHost(run),
    startMarketplace(run, indexer),
  ]);
  const order = (name: string) => SERVICES.indexOf(name);
  const started = run.parts.splice(before).sort((a, b) => order(a.name) - order(b.name));
  run.parts.push(...started);
  const failed = outcomes.find((outcome) => outcome.status === "rejected");
  if (failed) throw failed.reason;
}
