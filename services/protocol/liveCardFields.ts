/** The two card fields that describe the resource's current standing rather than its contract. */
export type LiveCardFields = { health: { verified: boolean; score: number }; bond: { posted: string } };

/** The values the card hash covers, and what a card says before the marketplace knows better (nothing listed). */
export const NEUTRAL_LIVE_FIELDS: LiveCardFields = { health: { verified: false, score: 0 }, bond: { posted: "0" } };

/**
 * The card with `health` and `bond` replaced, every other key kept in its place (so `JSON.stringify` of the result
 * differs from the original text only in those two values). The hashed form of a card is
 * `withLiveFields(card, NEUTRAL_LIVE_FIELDS)`; a served card carries the index's live values instead.
 * @example withLiveFields(card, { health: { verified: true, score: 100 }, bond: { posted: "1000000" } })
 */
export function withLiveFields<T>(card: T, live: LiveCardFields): T {
  if (card === null || typeof card !== "object" || Array.isArray(card)) return card;
  return {
    ...card,
    health: { verified: live.health.verified, score: live.health.score },
    bond: { posted: live.bond.posted },
  };
}

/**
 * The live fields of an index record (`health`, `bond` as a base-unit string), in card form.
 * @example liveFieldsOf({ health: { verified: true, score: 100 }, bond: "1000000" })
 */
export function liveFieldsOf(record: { health: { verified: boolean; score: number }; bond: string }): LiveCardFields {
  return { health: { verified: record.health.verified, score: record.health.score }, bond: { posted: record.bond } };
}
