import type { Recipe } from "../recipe.ts";
import { objectSchema } from "../recipe.ts";

/** Whether a text is a valid absolute http or https URL (WHATWG URL parsing). */
export const validateUrlRecipe: Recipe = {
  id: "url-validate",
  title: "URL check",
  description: "Check whether a text is a valid absolute http or https URL and return it normalized",
  synonyms: ["url", "uri", "link", "validate", "check", "well-formed", "http", "https", "normalize", "canonical"],
  category: "validation",
  tags: ["url", "validation"],
  parameters: () => ({}),
  build: () => ({
    name: "URL check",
    description:
      "Whether a text parses (WHATWG URL) as an absolute http or https URL with a host; the normalized form when it does, the reason when it does not.",
    compute: String.raw`
async function compute(input) {
  let url;
  try { url = new URL(input.url); } catch { return { valid: false, normalized: null, reason: "not an absolute URL" }; }
  if (url.protocol !== "http:" && url.protocol !== "https:") return { valid: false, normalized: null, reason: "the scheme is not http or https" };
  if (!url.hostname) return { valid: false, normalized: null, reason: "no host" };
  if (/\s/.test(input.url.trim())) return { valid: false, normalized: null, reason: "the URL contains spaces" };
  return { valid: true, normalized: url.href, reason: null };
}`,
    requestSchema: objectSchema({ url: { type: "string", maxLength: 2_048 } }),
    responseSchema: objectSchema({
      valid: { type: "boolean" },
      normalized: { type: ["string", "null"] },
      reason: { type: ["string", "null"] },
    }),
    examples: [
      {
        input: { url: "HTTPS://Example.com:443/a/../b?q=1#top" },
        output: { valid: true, normalized: "https://example.com/b?q=1#top", reason: null },
      },
      {
        input: { url: "ftp://example.com/file" },
        output: { valid: false, normalized: null, reason: "the scheme is not http or https" },
      },
      { input: { url: "example.com/path" }, output: { valid: false, normalized: null, reason: "not an absolute URL" } },
    ],
    edgeCases: [{ input: { url: "http://exa mple.com" }, note: "a space in the host" }],
    maxResponseBytes: 32_000,
  }),
};
