import type { Recipe } from "../recipe.ts";
import { objectSchema, text } from "../recipe.ts";

const count = { type: "integer", minimum: 0 };

/** Counts of the vowels, consonants and other letters of a text. */
export const countVowelsRecipe: Recipe = {
  id: "count-vowels",
  title: "Vowels and consonants",
  description: "Count the vowels and the consonants of a text, word or sentence",
  synonyms: ["vowels", "consonants", "letters", "count", "how many", "aeiou"],
  category: "text",
  tags: ["text", "count", "vowels"],
  parameters: () => ({}),
  build: () => ({
    name: "Count vowels and consonants",
    description:
      "Counts the vowels (a, e, i, o, u, accents ignored), the consonants (the other Latin letters, y included) and the letters of other scripts.",
    compute: String.raw`
async function compute(input) {
  let vowels = 0, consonants = 0, otherLetters = 0;
  for (const c of input.text.normalize("NFD").replace(/\p{M}/gu, "").toLowerCase()) {
    if ("aeiou".includes(c)) vowels++;
    else if (c >= "a" && c <= "z") consonants++;
    else if (/\p{L}/u.test(c)) otherLetters++;
  }
  return { vowels, consonants, otherLetters };
}`,
    requestSchema: objectSchema({ text: text(100_000) }),
    responseSchema: objectSchema({ vowels: count, consonants: count, otherLetters: count }),
    examples: [
      { input: { text: "Hello World" }, output: { vowels: 3, consonants: 7, otherLetters: 0 } },
      { input: { text: "Été rhythm!" }, output: { vowels: 2, consonants: 7, otherLetters: 0 } },
      { input: { text: "" }, output: { vowels: 0, consonants: 0, otherLetters: 0 } },
    ],
    edgeCases: [{ input: { text: "Ωμέγα 123" }, note: "Greek letters are counted apart" }],
    maxResponseBytes: 256,
  }),
};
