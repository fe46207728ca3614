import { z } from "zod";
import { amountSchema } from "../protocol/schemas/primitives.ts";
import type { StudioTarget } from "./studioTarget.ts";

const count = z.number().int().min(0);

/** The body of the marketplace's `GET /pricing/floor`. */
const floorSchema = z.object({
  minimumBase: amountSchema,
  baseFeeWei: amountSchema,
  gasPerDebit: count,
  feeBps: count,
  marginBps: count,
  costPerCallUnits: amountSchema,
});

/** The marketplace's price floor now, or why it could not be read. */
export type FetchedPriceFloor = ({ ok: true } & z.output<typeof floorSchema>) | { ok: false; reason: string };

/**
 * Reads the price floor of the marketplace the studio publishes to (`GET /pricing/floor`): the least base (and max)
 * it lists at its chain's current base fee, with the numbers it comes from. A marketplace that does not answer, or
 * answers something else, gives `ok: false` with the reason: the draft goes on, and the marketplace still checks the
 * price when it is published.
 * @example const floor = await fetchPriceFloor(target); if (floor.ok) console.log(floor.minimumBase)
 */
export async function fetchPriceFloor(
  target: Pick<StudioTarget, "marketplaceUrl">,
  timeoutMs = 10_000,
): Promise<FetchedPriceFloor> {
  const url = `${target.marketplaceUrl}/pricing/floor`;
  let response: Response;
  try {
    response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
  } catch (error) {
    return { ok: false, reason: `${url} did not answer (${(error as Error).message})` };
  }
  const body: unknown = await response.json().catch(() => undefined);
  if (!response.ok) {
    const message = (body as { error?: { message?: string } } | undefined)?.error?.message;
    return { ok: false, reason: `${url} answered ${response.status}${message ? `: ${message}` : ""}` };
  }
  const parsed = floorSchema.safeParse(body);
  if (!parsed.success) return { ok: false, reason: `${url} answered something that is not a price floor` };
  return { ok: true, ...parsed.data };
}
