import type { Recipe } from "../recipe.ts";
import { objectSchema } from "../recipe.ts";

const item = { type: ["string", "number", "boolean", "null"] };

/** A list with its duplicates removed, the first occurrence of each value kept in place. */
export const uniqueListRecipe: Recipe = {
  id: "unique-list",
  title: "Remove duplicates",
  description: "Remove the duplicate values from a list and keep the first occurrence of each in the original order",
  synonyms: [
    "duplicates",
    "duplicate",
    "dedupe",
    "deduplicate",
    "unique",
    "distinct",
    "remove",
    "repeated",
    "list",
    "items",
    "order",
    "values",
    "entries",
    "entry",
    "elements",
  ],
  category: "data",
  tags: ["list", "dedupe", "unique"],
  prefer: /^(?!.*\bsort)(?=.*\b(?:duplicates?|dedupe|deduplicate|unique|distinct)\b)/i,
  parameters: () => ({}),
  build: () => ({
    name: "Remove duplicates",
    description:
      "The list without repeated values (strings, numbers, booleans and null, compared by type and value), first occurrences in their original order, and how many were removed.",
    compute: String.raw`
async function compute(input) {
  const seen = new Set();
  const items = input.items.filter((x) => { const k = typeof x + ":" + String(x); if (seen.has(k)) return false; seen.add(k); return true; });
  return { items, removed: input.items.length - items.length };
}`,
    requestSchema: objectSchema({ items: { type: "array", maxItems: 10_000, items: item } }),
    responseSchema: objectSchema({ items: { type: "array", items: item }, removed: { type: "integer", minimum: 0 } }),
    examples: [
      { input: { items: ["b", "a", "b", "c", "a"] }, output: { items: ["b", "a", "c"], removed: 2 } },
      { input: { items: [1, "1", 1, null, null] }, output: { items: [1, "1", null], removed: 2 } },
      { input: { items: [true, false, true, 0, -1.5, 0] }, output: { items: [true, false, 0, -1.5], removed: 2 } },
    ],
    edgeCases: [{ input: { items: [] }, note: "an empty list" }],
    maxResponseBytes: 1_100_000,
  }),
};
