import { z } from "zod";
import type { Card } from "../../protocol/schemas/card.ts";
import { cardSchema } from "../../protocol/schemas/card.ts";

/**
 * A stored card's text as the catalog searches it: the validated card, or why it cannot be searched.
 * @example const parsed = parseStoredCard(listing.cardText); if (parsed.ok) index(parsed.card)
 */
export function parseStoredCard(text: string): { ok: true; card: Card } | { ok: false; problem: string } {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { ok: false, problem: "the stored card is not JSON" };
  }
  const parsed = cardSchema.safeParse(json);
  if (!parsed.success)
    return { ok: false, problem: `the stored card fails validation: ${z.prettifyError(parsed.error)}` };
  return { ok: true, card: parsed.data };
}
