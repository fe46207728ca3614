import type { Recipe } from "../recipe.ts";
import { objectSchema, text } from "../recipe.ts";

/** Markdown reduced to plain text: markup removed, link and image text kept. */
export const markdownToTextRecipe: Recipe = {
  id: "markdown-to-text",
  title: "Markdown to plain text",
  description: "Convert Markdown to plain text by stripping the formatting, links and markup",
  synonyms: [
    "markdown",
    "md",
    "plain",
    "text",
    "strip",
    "formatting",
    "convert",
    "render",
    "unformat",
    "readme",
    "remove",
    "syntax",
    "file",
  ],
  category: "text",
  tags: ["markdown", "text", "convert"],
  parameters: () => ({}),
  build: () => ({
    name: "Markdown to text",
    description:
      "Strips headings, emphasis, inline code, fences, block quotes, list markers, rules and HTML tags; keeps link and image text.",
    compute: String.raw`
async function compute(input) {
  const lines = input.markdown.replace(/\r\n?/g, "\n").split("\n").map((line) => {
    if (/^\s*(?:[-*_]\s*){3,}$/.test(line)) return "";
    if (/^\s*(?:\x60{3,}|~{3,})/.test(line)) return null;
    return line
      .replace(/^\s{0,3}#{1,6}\s+/, "")
      .replace(/^\s{0,3}>\s?/, "")
      .replace(/^(\s*)(?:[-*+]|\d+[.)])\s+/, "$1")
      .replace(/!\[([^\]]*)\]\([^)]*\)/g, "$1")
      .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
      .replace(/<[^<>]+>/g, "")
      .replace(/\x60([^\x60]*)\x60/g, "$1")
      .replace(/(\*\*|__)(?=\S)([^*_]*?\S)\1/g, "$2")
      .replace(/(\*|_)(?=\S)([^*_]*?\S)\1/g, "$2")
      .replace(/~~(?=\S)([^~]*?\S)~~/g, "$1");
  }).filter((line) => line !== null);
  return { text: lines.join("\n").replace(/\n{3,}/g, "\n\n").trim() };
}`,
    requestSchema: objectSchema({ markdown: text(100_000) }),
    responseSchema: objectSchema({ text: { type: "string" } }),
    examples: [
      {
        input: { markdown: "# Title\n\nSome **bold** and _italic_ text with a [link](https://x.io)." },
        output: { text: "Title\n\nSome bold and italic text with a link." },
      },
      { input: { markdown: "- one\n- two\n\n> quoted `code`" }, output: { text: "one\ntwo\n\nquoted code" } },
      { input: { markdown: "```js\nlet a = 1;\n```\n![alt text](i.png)" }, output: { text: "let a = 1;\nalt text" } },
    ],
    edgeCases: [{ input: { markdown: "" }, note: "empty in, empty out" }],
    maxResponseBytes: 200_000,
  }),
};
