import type { Recipe } from "../recipe.ts";
import { objectSchema, text } from "../recipe.ts";

/** http(s) URLs found in a text, trailing punctuation removed, deduplicated in order. */
export const extractUrlsRecipe: Recipe = {
  id: "extract-urls",
  title: "Extract URLs",
  description: "Extract every http or https URL or link found in a text",
  synonyms: ["url", "urls", "link", "links", "hyperlink", "extract", "find", "regex", "web"],
  category: "extraction",
  tags: ["url", "extract", "regex"],
  parameters: () => ({}),
  build: () => ({
    name: "Extract URLs",
    description: "Every http or https URL in a text (trailing punctuation removed), deduplicated, in order.",
    compute: String.raw`
async function compute(input) {
  const urls = [];
  for (const match of input.text.matchAll(/https?:\/\/[^\s<>"'()\[\]{}]+/gi)) {
    const url = match[0].replace(/[.,;:!?]+$/, "");
    if (!urls.includes(url)) urls.push(url);
  }
  return { urls, count: urls.length };
}`,
    requestSchema: objectSchema({ text: text(100_000) }),
    responseSchema: objectSchema({
      urls: { type: "array", items: { type: "string", pattern: "^[hH][tT][tT][pP][sS]?://" } },
      count: { type: "integer", minimum: 0 },
    }),
    examples: [
      {
        input: { text: "See https://example.com/a?b=1, and http://test.org." },
        output: { urls: ["https://example.com/a?b=1", "http://test.org"], count: 2 },
      },
      { input: { text: "ftp://no.example" }, output: { urls: [], count: 0 } },
      { input: { text: "(https://x.io/p) https://x.io/p" }, output: { urls: ["https://x.io/p"], count: 1 } },
    ],
    edgeCases: [{ input: { text: "https://" }, note: "a scheme alone is no URL" }],
    maxResponseBytes: 200_000,
  }),
};
