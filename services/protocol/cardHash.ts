import type { Hex } from "viem";
import { keccak256, stringToBytes } from "viem";
import { NEUTRAL_LIVE_FIELDS, withLiveFields } from "./liveCardFields.ts";

/**
 * The `cardHash` a card is registered under: keccak256 of `JSON.stringify` of the card with the neutral live fields
 * (`health`, `bond`). A served card (live values, keys in place) hashes to the same value once parsed.
 * @example cardHashOf(JSON.parse(await (await fetch(cardUri)).text()))
 */
export function cardHashOf(card: unknown): Hex {
  return keccak256(stringToBytes(JSON.stringify(withLiveFields(card, NEUTRAL_LIVE_FIELDS))));
}
