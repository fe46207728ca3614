import type { Recipe } from "../recipe.ts";
import { objectSchema, pickParameter, text } from "../recipe.ts";

const BASE32 = "^(?:[A-Z2-7]{8})*(?:[A-Z2-7]{2}={6}|[A-Z2-7]{4}={4}|[A-Z2-7]{5}={3}|[A-Z2-7]{7}=)?$";

/** Base32 (RFC 4648) encoding of UTF-8 text, or decoding back to text. */
export const base32Recipe: Recipe = {
  id: "base32",
  title: "Base32",
  description: "Encode a text to base32 (RFC 4648), or decode base32 back to text",
  synonyms: ["base32", "b32", "encode", "decode", "encoding", "rfc4648", "totp", "utf8"],
  category: "encoding",
  tags: ["base32", "encoding"],
  parameters: (sentence) => ({
    mode: pickParameter(
      sentence,
      [[/decod|from base ?32|base ?32 (?:back )?(?:in)?to|\bback (?:in)?to\b/i, "decode"]],
      "encode",
    ),
  }),
  build: ({ mode = "encode" }) =>
    mode === "decode"
      ? {
          name: "Base32 decode",
          description: "Decodes padded upper-case base32 (RFC 4648) to UTF-8 text; invalid UTF-8 becomes U+FFFD.",
          compute: String.raw`
const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
async function compute(input) {
  const bytes = [];
  let bits = 0, value = 0;
  for (const c of input.base32.replace(/=+$/, "")) {
    value = ((value << 5) | ALPHABET.indexOf(c)) & 0xffff;
    bits += 5;
    if (bits >= 8) { bytes.push((value >>> (bits - 8)) & 255); bits -= 8; }
  }
  return { text: new TextDecoder().decode(new Uint8Array(bytes)) };
}`,
          requestSchema: objectSchema({ base32: { type: "string", maxLength: 40_000, pattern: BASE32 } }),
          responseSchema: objectSchema({ text: { type: "string" } }),
          examples: [
            { input: { base32: "MZXW6YTBOI======" }, output: { text: "foobar" } },
            { input: { base32: "" }, output: { text: "" } },
            { input: { base32: "MY======" }, output: { text: "f" } },
          ],
          edgeCases: [{ input: { base32: "74======" }, note: "a byte that is not UTF-8 decodes to U+FFFD" }],
          maxResponseBytes: 200_000,
        }
      : {
          name: "Base32 encode",
          description: "Encodes a UTF-8 text as padded upper-case base32 (RFC 4648).",
          compute: String.raw`
const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
async function compute(input) {
  let out = "", bits = 0, value = 0;
  for (const byte of new TextEncoder().encode(input.text)) {
    value = ((value << 8) | byte) & 0xffff;
    bits += 8;
    while (bits >= 5) { out += ALPHABET[(value >>> (bits - 5)) & 31]; bits -= 5; }
  }
  if (bits > 0) out += ALPHABET[(value << (5 - bits)) & 31];
  return { base32: out + "=".repeat((8 - (out.length % 8)) % 8) };
}`,
          requestSchema: objectSchema({ text: text(25_000) }),
          responseSchema: objectSchema({ base32: { type: "string", pattern: BASE32 } }),
          examples: [
            { input: { text: "foobar" }, output: { base32: "MZXW6YTBOI======" } },
            { input: { text: "" }, output: { base32: "" } },
            { input: { text: "foob" }, output: { base32: "MZXW6YQ=" } },
          ],
          edgeCases: [{ input: { text: "☃" }, note: "multi-byte characters are encoded as UTF-8" }],
          maxResponseBytes: 170_000,
        },
};
