import type { StackRun } from "../stackRun.ts";
import { startFacilitator } from "./startFacilitator.ts";
import { startHost } from "./startHost.ts";
import { startIndexer } from "./startIndexer.ts";
import { startMarketplace } from "./startMarketplace.ts";

/**
 * Starts the indexer, the facilitator, the host and the marketplace side by side: each knows the others only by
 * URL (fixed before any starts) and waits for what it needs itself (the marketplace is ready once the indexer is, and
 * its deadline counts from then), so none has to wait for another's start; one after the other they took about half
 * a minute more. The first that fails gives the start up (`run.abandon`): the others still starting are killed at
 * once rather than waited for, and that first failure is the one reported. Every part that started is recorded, in
 * the order below, before it is reported, so a stop takes down all of them (in reverse).
 * @example await startServices(run)
 */
export async function startServices(run: StackRun): Promise<void> {
  const before = run.parts.length;
  let first: { error: unknown } | undefined;
  const watched = (start: Promise<void>) =>
    start.catch((error: unknown) => {
      first ??= { error };
      run.abandon.abort(error);
    });
  const indexer = startIndexer(run);
  const services = {
    indexer,
    facilitator: startFacilitator(run),
    host: startHost(run),
    marketplace: startMarketplace(run, indexer),
  };
  await Promise.all(Object.values(services).map(watched));
  const order = Object.keys(services);
  const started = run.parts.splice(before).sort((a, b) => order.indexOf(a.name) - order.indexOf(b.name));
  run.parts.push(...started);
  if (first) throw first.error;
}
