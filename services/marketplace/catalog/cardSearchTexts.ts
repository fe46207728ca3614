import type { Card } from "../../protocol/schemas/card.ts";
import type { WeightedText } from "./createTextIndex.ts";

/** How much a term counts by where in the card it stands: names and tags say what a resource is more than prose. */
export const CARD_FIELD_WEIGHTS = { name: 3, skillName: 2, tag: 2, description: 1, skillDescription: 1 } as const;

/**
 * The texts of a validated card that `GET /resources?q=` searches, weighted by field: its name and description, and
 * each skill's name, description and tags.
 * @example cardSearchTexts(card) // [{ text: "Palindrome check", weight: 3 }, …]
 */
export function cardSearchTexts(card: Card): WeightedText[] {
  const w = CARD_FIELD_WEIGHTS;
  return [
    { text: card.name, weight: w.name },
    { text: card.description, weight: w.description },
    ...card.skills.flatMap((skill) => [
      { text: skill.name, weight: w.skillName },
      { text: skill.description, weight: w.skillDescription },
      ...skill.tags.map((tag) => ({ text: tag, weight: w.tag })),
    ]),
  ];
}
