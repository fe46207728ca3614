import type { Recipe } from "../recipe.ts";
import { objectSchema, pickParameter, text } from "../recipe.ts";

const MODES: [RegExp, string][] = [
  [/\bwords?\b/i, "words"],
  [/\blines?\b/i, "lines"],
];

/** A text reversed by characters, by words or by lines; which is read from the sentence. */
export const reverseTextRecipe: Recipe = {
  id: "reverse-text",
  title: "Reverse text",
  description: "Reverse a text: the order of its characters, of the words of a sentence, or of its lines",
  synonyms: ["reverse", "backwards", "flip", "invert", "mirror", "order", "letters", "words", "lines", "sentence"],
  category: "text",
  tags: ["reverse", "text", "transform"],
  parameters: (sentence) => ({ mode: pickParameter(sentence, MODES, "characters") }),
  build: ({ mode = "characters" }) => {
    const examples: Record<string, [string, string][]> = {
      characters: [
        ["hello", "olleh"],
        ["", ""],
        ["añ☃b", "b☃ña"],
      ],
      words: [
        ["the quick brown fox", "fox brown quick the"],
        ["  one   two ", "two one"],
        ["", ""],
      ],
      lines: [
        ["a\nb\nc", "c\nb\na"],
        ["one line", "one line"],
        ["x\r\ny", "y\nx"],
      ],
    };
    return {
      name: `Reverse ${mode}`,
      description:
        mode === "words"
          ? "Reverses the order of the words of a text (words are runs of non-space characters, joined by one space)."
          : mode === "lines"
            ? "Reverses the order of the lines of a text (CRLF, CR or LF; joined with LF)."
            : "Reverses the characters of a text (by code point, so emoji and accented letters stay whole).",
      compute: String.raw`
async function compute(input) {
  if (PARAMS.mode === "words") return { result: input.text.split(/\s+/).filter(Boolean).reverse().join(" ") };
  if (PARAMS.mode === "lines") return { result: input.text.split(/\r\n|\r|\n/).reverse().join("\n") };
  return { result: Array.from(input.text).reverse().join("") };
}`,
      requestSchema: objectSchema({ text: text(20_000) }),
      responseSchema: objectSchema({ result: { type: "string" } }),
      examples: (examples[mode] ?? []).map(([input, result]) => ({ input: { text: input }, output: { result } })),
      edgeCases: [{ input: { text: " " }, note: "only spaces" }],
      maxResponseBytes: 130_000,
    };
  },
};
