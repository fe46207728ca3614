import type { Recipe } from "../recipe.ts";
import { objectSchema, text } from "../recipe.ts";

/** A text wrapped into lines of at most a given width, breaking between words. */
export const wordWrapRecipe: Recipe = {
  id: "word-wrap",
  title: "Word wrap",
  description: "Wrap a text into lines of at most a given width of columns, breaking between words",
  synonyms: [
    "wrap",
    "wordwrap",
    "fold",
    "columns",
    "width",
    "lines",
    "break",
    "paragraph",
    "reflow",
    "long",
    "wide",
    "wider",
    "characters",
  ],
  category: "text",
  tags: ["text", "wrap"],
  parameters: () => ({}),
  build: () => ({
    name: "Word wrap",
    description:
      'Wraps each paragraph of a text into lines of at most "width" characters (code points), breaking at spaces; a longer word is split.',
    compute: String.raw`
async function compute(input) {
  const lines = [];
  for (const paragraph of input.text.split(/\r\n|\r|\n/)) {
    let line = [];
    for (let word of paragraph.split(/\s+/).filter(Boolean).map((w) => Array.from(w))) {
      while (word.length > input.width) {
        if (line.length) { lines.push(line.join("")); line = []; }
        lines.push(word.slice(0, input.width).join(""));
        word = word.slice(input.width);
      }
      if (line.length && line.length + 1 + word.length > input.width) { lines.push(line.join("")); line = []; }
      if (word.length) line = line.length ? [...line, " ", ...word] : word;
    }
    lines.push(line.join(""));
  }
  return { lines };
}`,
    requestSchema: objectSchema({
      text: text(20_000),
      width: { type: "integer", minimum: 1, maximum: 1_000 },
    }),
    responseSchema: objectSchema({ lines: { type: "array", items: { type: "string" } } }),
    examples: [
      {
        input: { text: "The quick brown fox jumps over the lazy dog", width: 15 },
        output: { lines: ["The quick brown", "fox jumps over", "the lazy dog"] },
      },
      { input: { text: "one\n\ntwo", width: 10 }, output: { lines: ["one", "", "two"] } },
      { input: { text: "abcdefgh ij", width: 3 }, output: { lines: ["abc", "def", "gh", "ij"] } },
    ],
    edgeCases: [{ input: { text: "", width: 1 }, note: "an empty text is one empty line" }],
    maxResponseBytes: 300_000,
  }),
};
