import type { Recipe } from "../recipe.ts";
import { objectSchema, text } from "../recipe.ts";

/** Levenshtein edit distance of two strings and a similarity in [0, 1]. */
export const editDistanceRecipe: Recipe = {
  id: "edit-distance",
  title: "Edit distance",
  description: "Compute the Levenshtein edit distance and similarity between two strings",
  synonyms: [
    "levenshtein",
    "edit",
    "distance",
    "similarity",
    "compare",
    "strings",
    "fuzzy",
    "diff",
    "typo",
    "word",
    "words",
  ],
  category: "text",
  tags: ["levenshtein", "distance", "text"],
  parameters: () => ({}),
  build: () => ({
    name: "Edit distance",
    description:
      "Levenshtein distance (insertions, deletions, substitutions of code points) and 1 - distance/longer length.",
    compute: String.raw`
async function compute(input) {
  const a = Array.from(input.a), b = Array.from(input.b);
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++)
      row[j] = Math.min(previous[j] + 1, row[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    previous = row;
  }
  const distance = previous[b.length];
  const longest = Math.max(a.length, b.length);
  return { distance, similarity: longest ? Math.round((1 - distance / longest) * 10000) / 10000 : 1 };
}`,
    requestSchema: objectSchema({ a: text(1_000), b: text(1_000) }),
    responseSchema: objectSchema({
      distance: { type: "integer", minimum: 0 },
      similarity: { type: "number", minimum: 0, maximum: 1 },
    }),
    examples: [
      { input: { a: "kitten", b: "sitting" }, output: { distance: 3, similarity: 0.5714 } },
      { input: { a: "", b: "" }, output: { distance: 0, similarity: 1 } },
      { input: { a: "flaw", b: "lawn" }, output: { distance: 2, similarity: 0.5 } },
    ],
    edgeCases: [{ input: { a: "☃", b: "" }, note: "code points, not UTF-16 units" }],
    maxResponseBytes: 256,
  }),
};
