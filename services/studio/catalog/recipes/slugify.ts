import type { Recipe } from "../recipe.ts";
import { objectSchema, text } from "../recipe.ts";

/** A URL slug of a title: lowercase ASCII words joined by dashes, accents removed. */
export const slugifyRecipe: Recipe = {
  id: "slugify",
  title: "Slugify",
  description: "Turn a title or text into a URL slug of lowercase words separated by dashes",
  synonyms: [
    "slug",
    "slugify",
    "permalink",
    "url-friendly",
    "kebab",
    "title",
    "seo",
    "blog",
    "post",
    "article",
    "headline",
    "page",
  ],
  category: "text",
  tags: ["slug", "url", "text"],
  parameters: () => ({}),
  build: () => ({
    name: "Slugify",
    description: "Lowercase ASCII words of a text joined by dashes; accents are removed, other characters dropped.",
    compute: String.raw`
async function compute(input) {
  const slug = input.text.normalize("NFKD").replace(/\p{M}/gu, "").toLowerCase()
    .replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "");
  return { slug };
}`,
    requestSchema: objectSchema({ text: text(10_000) }),
    responseSchema: objectSchema({ slug: { type: "string", pattern: "^[a-z0-9-]*$" } }),
    examples: [
      { input: { text: "Hello, World!" }, output: { slug: "hello-world" } },
      { input: { text: "Crème brûlée  recipe" }, output: { slug: "creme-brulee-recipe" } },
      { input: { text: "---" }, output: { slug: "" } },
    ],
    edgeCases: [{ input: { text: "日本" }, note: "text without ASCII letters gives an empty slug" }],
    maxResponseBytes: 20_000,
  }),
};
