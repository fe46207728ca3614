import type { StackRun } from "../stackRun.ts";
import { startFacilitator } from "./startFacilitator.ts";
import { startHost } from "./startHost.ts";
import { startIndexer } from "./startIndexer.ts";
import { startMarketplace } from "./startMarketplace.ts";

/**
 * Starts the indexer, the facilitator, the host and the marketplace side by side: each knows the others only by
 * URL (fixed before any starts) and waits for what it needs itself (the marketplace is ready once the indexer is, and
 * its deadline counts from then), so none has to wait for another's start; one after the other they took about half
 * a minute more. Every part that started is recorded, in the order below, before a failure of another is reported,
 * so a stop takes down all of them (in reverse).
 * @example await startServices(run)
 */
export async function startServices(run: StackRun): Promise<void> {
  const before = run.parts.length;
  const indexer = startIndexer(run);
  const services = {
    indexer,
    facilitator: startFacilitator(run),
    host: startHost(run),
    marketplace: startMarketplace(run, indexer),
  };
  const outcomes = await Promise.allSettled(Object.values(services));
  const order = Object.keys(services);
  const started = run.parts.splice(before).sort((a, b) => order.indexOf(a.name) - order.indexOf(b.name));
  run.parts.push(...started);
  const failed = outcomes.find((outcome) => outcome.status === "rejected");
  if (failed) throw failed.reason;
}
