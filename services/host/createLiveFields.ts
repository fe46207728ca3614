import type { Logger } from "pino";
import { z } from "zod";
import type { LiveCardFields } from "../protocol/liveCardFields.ts";
import { liveFieldsOf, NEUTRAL_LIVE_FIELDS } from "../protocol/liveCardFields.ts";
import { amountSchema, resourceIdSchema } from "../protocol/schemas/primitives.ts";

const PAGE = 1_000;

const recordSchema = z.object({
  resourceId: resourceIdSchema,
  health: z.object({ verified: z.boolean(), score: z.number().min(0).max(100) }),
  bond: amountSchema,
});

/** The marketplace's current `health` and `bond` of each listed resource, refreshed in the background. */
export type LiveFields = { get(resourceId: string): LiveCardFields; refresh(): Promise<void>; stop(): void };

/**
 * Follows the marketplace index (`GET {marketplaceUrl}/resources`, every page) every `intervalMs`, so the card a
 * resource serves carries the same `health` and `bond` as its index record. A resource the index does not list (or
 * no marketplace configured) gets the neutral values, as the index shows nothing better; an unreachable marketplace
 * keeps the last values read.
 * @example const live = createLiveFields({ marketplaceUrl, intervalMs: 5_000, logger }); live.get(resourceId)
 */
export function createLiveFields(p: {
  marketplaceUrl: string | undefined;
  intervalMs: number;
  logger: Logger;
}): LiveFields {
  let known = new Map<string, LiveCardFields>();
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  async function refresh() {
    if (!p.marketplaceUrl) return;
    const next = new Map<string, LiveCardFields>();
    try {
      for (let offset = 0; ; offset += PAGE) {
        const response = await fetch(`${p.marketplaceUrl}/resources?limit=${PAGE}&offset=${offset}`, {
          redirect: "error",
          signal: AbortSignal.timeout(5_000),
        });
        if (!response.ok) throw new Error(`GET /resources answered ${response.status}`);
        const page = z.array(z.unknown()).parse(await response.json());
        for (const row of page) {
          const record = recordSchema.safeParse(row);
          if (record.success) next.set(record.data.resourceId, liveFieldsOf(record.data));
        }
        if (page.length < PAGE) break;
      }
      known = next;
    } catch (error) {
      p.logger.debug(
        { err: (error as Error).message },
        "the marketplace index could not be read; card live fields kept",
      );
    }
  }
  const loop = () => {
    if (stopped) return;
    timer = setTimeout(() => void refresh().finally(loop), p.intervalMs);
    timer.unref();
  };
  if (p.marketplaceUrl) {
    void refresh();
    loop();
  }
  return {
    get: (resourceId) => known.get(resourceId.toLowerCase()) ?? NEUTRAL_LIVE_FIELDS,
    refresh,
    stop: () => {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
