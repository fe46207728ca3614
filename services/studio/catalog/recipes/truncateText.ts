import type { Recipe } from "../recipe.ts";
import { objectSchema, text } from "../recipe.ts";

/** A text cut to a maximum length at a word boundary, with an ellipsis. */
export const truncateTextRecipe: Recipe = {
  id: "truncate-text",
  title: "Truncate text",
  description: "Truncate a text to a maximum number of characters at a word boundary and add an ellipsis",
  synonyms: [
    "truncate",
    "shorten",
    "cut",
    "clip",
    "trim",
    "limit",
    "ellipsis",
    "excerpt",
    "preview",
    "length",
    "characters",
    "long",
  ],
  category: "text",
  tags: ["text", "truncate"],
  parameters: () => ({}),
  build: () => ({
    name: "Truncate text",
    description:
      'Cuts a text to at most "maxLength" characters (code points) including the ellipsis (default "…"), at the last space when there is one.',
    compute: String.raw`
async function compute(input) {
  const chars = Array.from(input.text);
  const ellipsis = Array.from(input.ellipsis === undefined ? "…" : input.ellipsis);
  if (chars.length <= input.maxLength) return { result: input.text, truncated: false };
  const room = Math.max(0, input.maxLength - ellipsis.length);
  let cut = chars.slice(0, room).join("");
  const space = cut.search(/\s\S*$/);
  if (space > 0 && /\S/.test(chars[room] ?? "")) cut = cut.slice(0, space);
  return { result: Array.from(cut.trimEnd() + ellipsis.join("")).slice(0, input.maxLength).join(""), truncated: true };
}`,
    requestSchema: objectSchema(
      {
        text: text(100_000),
        maxLength: { type: "integer", minimum: 1, maximum: 10_000 },
        ellipsis: text(10),
      },
      ["ellipsis"],
    ),
    responseSchema: objectSchema({ result: { type: "string" }, truncated: { type: "boolean" } }),
    examples: [
      {
        input: { text: "The quick brown fox jumps over the lazy dog", maxLength: 20 },
        output: { result: "The quick brown fox…", truncated: true },
      },
      { input: { text: "Short enough", maxLength: 20 }, output: { result: "Short enough", truncated: false } },
      {
        input: { text: "Supercalifragilistic", maxLength: 10, ellipsis: "..." },
        output: { result: "Superca...", truncated: true },
      },
    ],
    edgeCases: [
      { input: { text: "abc", maxLength: 1, ellipsis: "..." }, note: "an ellipsis longer than the room is cut" },
    ],
    maxResponseBytes: 70_000,
  }),
};
