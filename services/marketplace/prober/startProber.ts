import type { Logger } from "pino";
import type { Hex } from "viem";
import type { Store } from "../../store/store.ts";
import type { Catalog } from "../catalog/createCatalog.ts";
import type { MarketplaceChain } from "../chain.ts";
import type { MarketplaceConfig } from "../loadMarketplaceConfig.ts";
import { probeResource } from "../publish/probeResource.ts";
import { findListing } from "../store/listings.ts";
import { recordProbe } from "../store/probes.ts";

export type StartProberParameters = {
  config: Pick<
    MarketplaceConfig,
    | "PROBE_INTERVAL_MS"
    | "PROBE_TIMEOUT_MS"
    | "PROBE_MAX_BODY_BYTES"
    | "PROBE_ALLOW_PRIVATE"
    | "PROBE_CONCURRENCY"
    | "UPTIME_WINDOW"
  >;
  catalog: Catalog;
  chain: MarketplaceChain;
  store: Store;
  logger: Logger;
};

/**
 * Probes every listed resource each `PROBE_INTERVAL_MS` (health, card, quote: see probeResource), at most
 * `PROBE_CONCURRENCY` at a time; the card must now be final (no placeholder) and equal the card the marketplace
 * serves. Each result is appended to the resource's probe history, from which uptime and health are computed.
 * @example const prober = startProber({ config, catalog, chain, store, logger }); await prober.probeAll()
 */
export function startProber({ config, catalog, chain, store, logger }: StartProberParameters) {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();

  async function probeOne(resourceId: Hex): Promise<{ ok: boolean; error?: string }> {
    const listing = await findListing(store, resourceId);
    if (!listing || listing.status === "removed") return { ok: false, error: "no listing" };
    let expectedCard: unknown;
    try {
      expectedCard = JSON.parse(listing.cardText);
    } catch {
      expectedCard = null;
    }
    const probe = await probeResource({
      resourceId,
      resourceUrl: listing.resourceUrl,
      escrow: chain.addresses.escrow,
      token: chain.addresses.token,
      sampleRequest: listing.sampleRequest,
      expectedCard,
      allowAgentPlaceholder: false,
      timeoutMs: config.PROBE_TIMEOUT_MS,
      maxBodyBytes: config.PROBE_MAX_BODY_BYTES,
      allowPrivate: config.PROBE_ALLOW_PRIVATE,
    });
    const result = probe.ok ? { ok: true } : { ok: false, error: `${probe.check}: ${probe.reason}` };
    const history = await recordProbe(store, resourceId, result, config.UPTIME_WINDOW);
    catalog.applyProbes(resourceId, history);
    return result;
  }

  /** Probes every listed resource once; resolves when all are done. */
  async function probeAll(): Promise<void> {
    const queue = catalog.listed().map((entry) => entry.resourceId);
    const worker = async () => {
      for (let id = queue.shift(); id !== undefined && !stopped; id = queue.shift()) {
        await probeOne(id).catch((error: Error) =>
          logger.warn({ resourceId: id, err: error.message }, "probe failed to run"),
        );
      }
    };
    await Promise.all(Array.from({ length: config.PROBE_CONCURRENCY }, worker));
  }

  const loop = () => {
    if (stopped || config.PROBE_INTERVAL_MS === 0) return;
    timer = setTimeout(() => {
      running = probeAll().finally(loop);
    }, config.PROBE_INTERVAL_MS);
  };
  loop();

  return {
    probeAll,
    probeOne,
    async stop(): Promise<void> {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running.catch(() => {});
    },
  };
}

/** The running prober. */
export type Prober = ReturnType<typeof startProber>;
