import type { Recipe } from "../recipe.ts";
import { objectSchema, text } from "../recipe.ts";

const count = { type: "integer", minimum: 0 };

/** The sentences of a text with the number of words in each. */
export const sentenceLengthsRecipe: Recipe = {
  id: "sentence-lengths",
  title: "Words per sentence",
  description: "Split a text into sentences and count the words in each sentence, with the average sentence length",
  synonyms: ["sentences", "split", "words", "per", "each", "count", "length", "average", "readability", "segment"],
  category: "text",
  tags: ["text", "sentences", "count"],
  prefer: /\b(?:per|each|every)\s+sentences?\b|\bsentence (?:lengths?|by sentence)\b|\bsplit\b.*\bsentences?\b/i,
  parameters: () => ({}),
  build: () => ({
    name: "Words per sentence",
    description:
      "Splits a text into sentences (ended by . ! ? or a line break) and counts the words (runs of letters, digits and apostrophes) of each.",
    compute: String.raw`
async function compute(input) {
  const sentences = input.text.split(/(?<=[.!?])\s+|[\r\n]+/).map((s) => s.trim()).filter((s) => /[\p{L}\p{N}]/u.test(s))
    .map((sentence) => ({ sentence, words: (sentence.match(/[\p{L}\p{N}']+/gu) || []).length }));
  const total = sentences.reduce((sum, s) => sum + s.words, 0);
  return { sentences, averageWords: sentences.length ? Math.round((total / sentences.length) * 100) / 100 : 0 };
}`,
    requestSchema: objectSchema({ text: text(10_000) }),
    responseSchema: objectSchema({
      sentences: {
        type: "array",
        items: objectSchema({ sentence: { type: "string" }, words: count }),
      },
      averageWords: { type: "number", minimum: 0 },
    }),
    examples: [
      {
        input: { text: "Hello world. How are you today? Fine!" },
        output: {
          sentences: [
            { sentence: "Hello world.", words: 2 },
            { sentence: "How are you today?", words: 4 },
            { sentence: "Fine!", words: 1 },
          ],
          averageWords: 2.33,
        },
      },
      {
        input: { text: "One line\nanother line here" },
        output: {
          sentences: [
            { sentence: "One line", words: 2 },
            { sentence: "another line here", words: 3 },
          ],
          averageWords: 2.5,
        },
      },
      { input: { text: "" }, output: { sentences: [], averageWords: 0 } },
    ],
    edgeCases: [{ input: { text: "... !!" }, note: "punctuation alone holds no sentence" }],
    maxResponseBytes: 200_000,
  }),
};
