import { HTML_ENTITIES_SOURCE } from "../htmlSource.ts";
import type { Recipe } from "../recipe.ts";
import { objectSchema, text } from "../recipe.ts";

/** The visible text of an HTML fragment: tags, comments, scripts and styles removed, entities decoded. */
export const stripHtmlRecipe: Recipe = {
  id: "strip-html",
  title: "HTML to plain text",
  description:
    "Strip the HTML tags, comments, scripts and styles from an HTML page or fragment and return its plain text",
  synonyms: ["html", "tags", "strip", "remove", "sanitize", "markup", "page", "plain", "visible", "extract"],
  category: "text",
  tags: ["html", "text", "strip"],
  parameters: () => ({}),
  build: () => ({
    name: "HTML to text",
    description:
      "Removes tags, comments, <script> and <style> content; block tags and <br> become line breaks; numeric and common named entities are decoded; runs of spaces collapse.",
    compute: String.raw`
${HTML_ENTITIES_SOURCE}
async function compute(input) {
  const text = input.html
    .replace(/<!--[\s\S]*?(?:-->|$)/g, "")
    .replace(/<(script|style)\b[\s\S]*?(?:<\/\1\s*>|$)/gi, "")
    .replace(/<(?:br|\/?(?:p|div|li|ul|ol|h[1-6]|tr|table|section|article|header|footer|blockquote|pre))\b[^>]*>/gi, "\n")
    .replace(/<\/?[a-z!][^>]*>/gi, "");
  const lines = decodeEntities(text).split("\n").map((line) => line.replace(/[ \t\f\v\u00a0]+/g, " ").trim());
  return { text: lines.join("\n").replace(/\n{3,}/g, "\n\n").trim() };
}`,
    requestSchema: objectSchema({ html: text(50_000) }),
    responseSchema: objectSchema({ text: { type: "string" } }),
    examples: [
      {
        input: { html: "<p>Hello <b>world</b> &amp; friends</p>" },
        output: { text: "Hello world & friends" },
      },
      {
        input: { html: "<h1>Title</h1><script>alert(1)</script><p>One<br>Two</p><!-- note -->" },
        output: { text: "Title\n\nOne\nTwo" },
      },
      { input: { html: "5 &lt; 6 &#x2713; &#169;" }, output: { text: "5 < 6 ✓ ©" } },
    ],
    edgeCases: [{ input: { html: "<p" }, note: "an unfinished tag stays as text" }],
    maxResponseBytes: 320_000,
  }),
};
