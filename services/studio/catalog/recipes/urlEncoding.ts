import type { Recipe } from "../recipe.ts";
import { objectSchema, pickParameter, text } from "../recipe.ts";

/** Percent-encoding of a URL component, or decoding it. */
export const urlEncodingRecipe: Recipe = {
  id: "url-encoding",
  title: "URL encoding",
  description: "Percent-encode a text for use in a URL query component, or URL-decode it back",
  synonyms: [
    "urlencode",
    "urldecode",
    "escape",
    "unescape",
    "uri",
    "component",
    "query",
    "encode",
    "decode",
    "parameters",
    "parameter",
    "values",
  ],
  category: "encoding",
  tags: ["url", "urlencoding"],
  parameters: (sentence) => ({
    mode: pickParameter(sentence, [[/decod|unescape|\bback (?:in)?to\b/i, "decode"]], "encode"),
  }),
  build: ({ mode = "encode" }) =>
    mode === "decode"
      ? {
          name: "URL decode",
          description:
            "Decodes a percent-encoded URL component ('+' stays '+'); malformed escapes are reported as data.",
          compute: String.raw`
async function compute(input) {
  try {
    return { valid: true, text: decodeURIComponent(input.encoded) };
  } catch {
    return { valid: false, text: null };
  }
}`,
          requestSchema: objectSchema({ encoded: text(50_000) }),
          responseSchema: objectSchema({ valid: { type: "boolean" }, text: { type: ["string", "null"] } }),
          examples: [
            { input: { encoded: "a%20b%26c" }, output: { valid: true, text: "a b&c" } },
            { input: { encoded: "caf%C3%A9" }, output: { valid: true, text: "café" } },
            { input: { encoded: "%E0%A4%A" }, output: { valid: false, text: null } },
          ],
          edgeCases: [{ input: { encoded: "%" }, note: "a lone percent sign is malformed" }],
          maxResponseBytes: 100_000,
        }
      : {
          name: "URL encode",
          description: "Percent-encodes a text as a URL component (RFC 3986 unreserved characters kept).",
          compute: String.raw`
async function compute(input) {
  const encoded = encodeURIComponent(input.text.replace(/[\uD800-\uDFFF]/g, (c, i, s) => {
    const code = c.charCodeAt(0);
    const paired = code < 0xdc00 ? /[\uDC00-\uDFFF]/.test(s[i + 1] || "") : /[\uD800-\uDBFF]/.test(s[i - 1] || "");
    return paired ? c : "\uFFFD";
  })).replace(/[!'()*]/g, (c) => "%" + c.charCodeAt(0).toString(16).toUpperCase());
  return { encoded };
}`,
          requestSchema: objectSchema({ text: text(20_000) }),
          responseSchema: objectSchema({ encoded: { type: "string", pattern: "^[A-Za-z0-9%._~-]*$" } }),
          examples: [
            { input: { text: "a b&c" }, output: { encoded: "a%20b%26c" } },
            { input: { text: "café" }, output: { encoded: "caf%C3%A9" } },
            { input: { text: "it's (fine)!" }, output: { encoded: "it%27s%20%28fine%29%21" } },
          ],
          edgeCases: [{ input: { text: "\uD800" }, note: "a lone surrogate is encoded as U+FFFD" }],
          maxResponseBytes: 200_000,
        },
};
