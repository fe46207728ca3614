import type { Recipe } from "../recipe.ts";
import { objectSchema, text } from "../recipe.ts";

/** The most frequent words of a text. */
export const wordFrequenciesRecipe: Recipe = {
  id: "word-frequencies",
  title: "Word frequencies",
  description: "Count how often each word occurs in a text and return the most frequent words",
  synonyms: [
    "word",
    "words",
    "frequency",
    "frequencies",
    "count",
    "occurrences",
    "common",
    "top",
    "histogram",
    "keywords",
    "frequent",
  ],
  category: "text",
  tags: ["text", "frequency", "words"],
  parameters: () => ({}),
  build: () => ({
    name: "Word frequencies",
    description: "The most frequent lowercase words of a text (ties in alphabetical order), at most `top` (10).",
    compute: String.raw`
async function compute(input) {
  const counts = new Map();
  const words = input.text.toLowerCase().match(/[\p{L}\p{N}']+/gu) || [];
  for (const w of words) counts.set(w, (counts.get(w) || 0) + 1);
  const top = [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
    .slice(0, input.top === undefined ? 10 : input.top).map(([word, count]) => ({ word, count }));
  return { total: words.length, distinct: counts.size, top };
}`,
    requestSchema: objectSchema({ text: text(100_000), top: { type: "integer", minimum: 1, maximum: 100 } }, ["top"]),
    responseSchema: objectSchema({
      total: { type: "integer", minimum: 0 },
      distinct: { type: "integer", minimum: 0 },
      top: {
        type: "array",
        maxItems: 100,
        items: objectSchema({ word: { type: "string" }, count: { type: "integer", minimum: 1 } }),
      },
    }),
    examples: [
      {
        input: { text: "the cat and the hat", top: 2 },
        output: {
          total: 5,
          distinct: 4,
          top: [
            { word: "the", count: 2 },
            { word: "and", count: 1 },
          ],
        },
      },
      { input: { text: "" }, output: { total: 0, distinct: 0, top: [] } },
      {
        input: { text: "B b a" },
        output: {
          total: 3,
          distinct: 2,
          top: [
            { word: "b", count: 2 },
            { word: "a", count: 1 },
          ],
        },
      },
    ],
    edgeCases: [{ input: { text: "!!!" }, note: "no words" }],
    maxResponseBytes: 200_000,
  }),
};
