import type { Recipe } from "../recipe.ts";
import { objectSchema, text } from "../recipe.ts";

const count = { type: "integer", minimum: 0 };

/** Counts of characters, words, lines and sentences of a text. */
export const textStatisticsRecipe: Recipe = {
  id: "text-statistics",
  title: "Text statistics",
  description: "Count the characters, words, lines and sentences of a text and the average word length",
  synonyms: ["count", "word count", "statistics", "stats", "length", "characters", "words", "lines", "sentences"],
  category: "text",
  prefer:
    /\b(?:count|how many|number of)\s+(?:the\s+)?(?:characters|words|lines|sentences)\b(?!.*\b(?:each|per|every)\b)/i,
  tags: ["text", "statistics", "count"],
  parameters: () => ({}),
  build: () => ({
    name: "Text statistics",
    description: "Characters (code points), words, lines, sentences and average word length of a text.",
    compute: String.raw`
async function compute(input) {
  const t = input.text;
  const words = t.match(/[\p{L}\p{N}']+/gu) || [];
  const letters = words.reduce((sum, w) => sum + Array.from(w).length, 0);
  return {
    characters: Array.from(t).length,
    words: words.length,
    lines: t === "" ? 0 : t.split(/\r\n|\r|\n/).length,
    sentences: t.split(/[.!?]+/).filter((s) => /[\p{L}\p{N}]/u.test(s)).length,
    averageWordLength: words.length ? Math.round((letters / words.length) * 100) / 100 : 0,
  };
}`,
    requestSchema: objectSchema({ text: text(200_000) }),
    responseSchema: objectSchema({
      characters: count,
      words: count,
      lines: count,
      sentences: count,
      averageWordLength: { type: "number", minimum: 0 },
    }),
    examples: [
      {
        input: { text: "Hello world. How are you?" },
        output: { characters: 25, words: 5, lines: 1, sentences: 2, averageWordLength: 3.8 },
      },
      { input: { text: "" }, output: { characters: 0, words: 0, lines: 0, sentences: 0, averageWordLength: 0 } },
      {
        input: { text: "one\ntwo three" },
        output: { characters: 13, words: 3, lines: 2, sentences: 1, averageWordLength: 3.67 },
      },
    ],
    edgeCases: [{ input: { text: "..." }, note: "punctuation alone is no sentence" }],
    maxResponseBytes: 512,
  }),
};
