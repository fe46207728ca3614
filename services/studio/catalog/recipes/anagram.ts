import type { Recipe } from "../recipe.ts";
import { objectSchema, text } from "../recipe.ts";

/** Whether two texts are anagrams of each other, ignoring case, spaces, punctuation and accents. */
export const anagramRecipe: Recipe = {
  id: "anagram-check",
  title: "Anagram check",
  description: "Check whether two words or phrases are anagrams of each other, made of the same letters",
  synonyms: ["anagram", "anagrams", "letters", "rearrange", "permutation", "same", "texts"],
  category: "text",
  tags: ["anagram", "text", "check"],
  parameters: () => ({}),
  build: () => ({
    name: "Anagram check",
    description:
      "Whether the letters and digits of two texts (case, spaces, punctuation and accents ignored) are the same multiset.",
    compute: String.raw`
function letters(t) {
  return Array.from(t.normalize("NFD").replace(/\p{M}/gu, "").toLowerCase().replace(/[^\p{L}\p{N}]/gu, "")).sort().join("");
}
async function compute(input) {
  const a = letters(input.first), b = letters(input.second);
  return { anagram: a.length > 0 && a === b };
}`,
    requestSchema: objectSchema({ first: text(1_000), second: text(1_000) }),
    responseSchema: objectSchema({ anagram: { type: "boolean" } }),
    examples: [
      { input: { first: "listen", second: "Silent" }, output: { anagram: true } },
      { input: { first: "Dormitory", second: "dirty room!" }, output: { anagram: true } },
      { input: { first: "apple", second: "paper" }, output: { anagram: false } },
    ],
    edgeCases: [{ input: { first: "", second: "" }, note: "two empty texts are not anagrams" }],
    maxResponseBytes: 64,
  }),
};
