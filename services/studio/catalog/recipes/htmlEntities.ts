import { HTML_ENTITIES_SOURCE } from "../htmlSource.ts";
import type { Recipe } from "../recipe.ts";
import { objectSchema, pickParameter, text } from "../recipe.ts";

/** HTML escaping of the special characters of a text, or decoding of HTML entities back to text. */
export const htmlEntitiesRecipe: Recipe = {
  id: "html-entities",
  title: "HTML escape",
  description: "Escape the HTML special characters of a text as entities, or unescape HTML entities back to text",
  synonyms: [
    "html",
    "escape",
    "unescape",
    "entities",
    "entity",
    "encode",
    "decode",
    "special",
    "characters",
    "xss",
    "ampersand",
  ],
  category: "encoding",
  tags: ["html", "escape", "encoding"],
  parameters: (sentence) => ({
    mode: pickParameter(
      sentence,
      [[/\bunescap|\bdecod|\bentities (?:back )?(?:in)?to\b|\bback (?:in)?to\b/i, "decode"]],
      "encode",
    ),
  }),
  build: ({ mode = "encode" }) =>
    mode === "decode"
      ? {
          name: "HTML unescape",
          description:
            "Decodes numeric character references and the common named HTML entities (&amp; &lt; &gt; &quot; &apos; &nbsp; …); unknown entities stay as written.",
          compute: String.raw`
${HTML_ENTITIES_SOURCE}
async function compute(input) {
  return { text: decodeEntities(input.html) };
}`,
          requestSchema: objectSchema({ html: text(50_000) }),
          responseSchema: objectSchema({ text: { type: "string" } }),
          examples: [
            { input: { html: "Tom &amp; Jerry &lt;3" }, output: { text: "Tom & Jerry <3" } },
            { input: { html: "&#x1F600; &#233;t&eacute;" }, output: { text: "😀 ét&eacute;" } },
            { input: { html: "&quot;quoted&quot; &#39;single&#39;" }, output: { text: "\"quoted\" 'single'" } },
          ],
          edgeCases: [{ input: { html: "&#0; &#xD800;" }, note: "NUL and surrogate references stay as written" }],
          maxResponseBytes: 320_000,
        }
      : {
          name: "HTML escape",
          description:
            "Escapes & < > \" ' as &amp; &lt; &gt; &quot; &#39; so a text is safe inside HTML content and attributes.",
          compute: String.raw`
const ESCAPES = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
async function compute(input) {
  return { html: input.text.replace(/[&<>"']/g, (c) => ESCAPES[c]) };
}`,
          requestSchema: objectSchema({ text: text(50_000) }),
          responseSchema: objectSchema({ html: { type: "string" } }),
          examples: [
            {
              input: { text: '<a href="x">Tom & Jerry\'s</a>' },
              output: { html: "&lt;a href=&quot;x&quot;&gt;Tom &amp; Jerry&#39;s&lt;/a&gt;" },
            },
            { input: { text: "plain" }, output: { html: "plain" } },
            { input: { text: "" }, output: { html: "" } },
          ],
          edgeCases: [{ input: { text: "&amp;" }, note: "an existing entity is escaped again" }],
          maxResponseBytes: 320_000,
        },
};
