import type { Recipe } from "../recipe.ts";
import { objectSchema, pickParameter, text } from "../recipe.ts";

const BASE64 = "^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$";

/** Base64 encoding of UTF-8 text, or decoding back to text. */
export const base64Recipe: Recipe = {
  id: "base64",
  title: "Base64",
  description: "Encode a text to base64, or decode base64 back to text",
  synonyms: ["base64", "b64", "encode", "decode", "encoding", "rfc4648", "utf8"],
  category: "encoding",
  tags: ["base64", "encoding"],
  parameters: (sentence) => ({
    mode: pickParameter(
      sentence,
      [[/decod|from base ?64|base ?64 (?:back )?(?:in)?to|\bback (?:in)?to\b/i, "decode"]],
      "encode",
    ),
  }),
  build: ({ mode = "encode" }) =>
    mode === "decode"
      ? {
          name: "Base64 decode",
          description: "Decodes standard base64 (RFC 4648, padded) to UTF-8 text; invalid UTF-8 becomes U+FFFD.",
          compute: String.raw`
async function compute(input) {
  const binary = atob(input.base64);
  return { text: new TextDecoder().decode(Uint8Array.from(binary, (c) => c.charCodeAt(0))) };
}`,
          requestSchema: objectSchema({ base64: { type: "string", maxLength: 100_000, pattern: BASE64 } }),
          responseSchema: objectSchema({ text: { type: "string" } }),
          examples: [
            { input: { base64: "aGVsbG8=" }, output: { text: "hello" } },
            { input: { base64: "" }, output: { text: "" } },
            { input: { base64: "aMOpbGxv" }, output: { text: "héllo" } },
          ],
          edgeCases: [{ input: { base64: "/w==" }, note: "bytes that are not UTF-8 decode to U+FFFD" }],
          maxResponseBytes: 200_000,
        }
      : {
          name: "Base64 encode",
          description: "Encodes a UTF-8 text as standard base64 (RFC 4648, padded).",
          compute: String.raw`
async function compute(input) {
  let binary = "";
  for (const byte of new TextEncoder().encode(input.text)) binary += String.fromCharCode(byte);
  return { base64: btoa(binary) };
}`,
          requestSchema: objectSchema({ text: text(50_000) }),
          responseSchema: objectSchema({ base64: { type: "string", pattern: BASE64 } }),
          examples: [
            { input: { text: "hello" }, output: { base64: "aGVsbG8=" } },
            { input: { text: "" }, output: { base64: "" } },
            { input: { text: "héllo" }, output: { base64: "aMOpbGxv" } },
          ],
          edgeCases: [{ input: { text: "☃" }, note: "multi-byte characters are encoded as UTF-8" }],
          maxResponseBytes: 200_000,
        },
};
