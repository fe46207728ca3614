import type { Recipe } from "../recipe.ts";
import { objectSchema, text } from "../recipe.ts";

/** Whether a text reads the same backwards, ignoring case, spaces and punctuation. */
export const palindromeRecipe: Recipe = {
  id: "palindrome-check",
  title: "Palindrome check",
  description: "Check whether a text, word or sentence is a palindrome that reads the same in both directions",
  synonyms: [
    "palindrome",
    "palindromic",
    "symmetric",
    "phrase",
    "number",
    "backward",
    "backwards",
    "forward",
    "forwards",
    "ignore",
    "ignoring",
    "spaces",
    "punctuation",
  ],
  category: "text",
  tags: ["palindrome", "text", "check"],
  parameters: () => ({}),
  build: () => ({
    name: "Palindrome check",
    description:
      "Whether the letters and digits of a text (case, spaces, punctuation and accents ignored) read the same backwards.",
    compute: String.raw`
async function compute(input) {
  const kept = Array.from(input.text.normalize("NFD").replace(/\p{M}/gu, "").toLowerCase().replace(/[^\p{L}\p{N}]/gu, ""));
  const reversed = [...kept].reverse().join("");
  return { palindrome: kept.length > 0 && reversed === kept.join(""), normalized: kept.join("") };
}`,
    requestSchema: objectSchema({ text: text(10_000) }),
    responseSchema: objectSchema({ palindrome: { type: "boolean" }, normalized: { type: "string" } }),
    examples: [
      {
        input: { text: "A man, a plan, a canal: Panama" },
        output: { palindrome: true, normalized: "amanaplanacanalpanama" },
      },
      { input: { text: "hello" }, output: { palindrome: false, normalized: "hello" } },
      {
        input: { text: "Ésope reste ici et se repose" },
        output: { palindrome: true, normalized: "esoperesteicietserepose" },
      },
    ],
    edgeCases: [{ input: { text: "?!" }, note: "no letters or digits is not a palindrome" }],
    maxResponseBytes: 130_000,
  }),
};
