import type { Recipe } from "../recipe.ts";
import { objectSchema, pickParameter, text } from "../recipe.ts";

/** Hexadecimal encoding of UTF-8 text, or decoding hex back to text. */
export const hexRecipe: Recipe = {
  id: "hex",
  title: "Hex encoding",
  description: "Encode a text as hexadecimal bytes, or decode hex back to text",
  synonyms: ["hex", "hexadecimal", "base16", "encode", "decode", "bytes", "utf8"],
  category: "encoding",
  tags: ["hex", "encoding"],
  parameters: (sentence) => ({
    mode: pickParameter(sentence, [[/decod|from hex|hex (?:back )?(?:in)?to|\bback (?:in)?to\b/i, "decode"]], "encode"),
  }),
  build: ({ mode = "encode" }) =>
    mode === "decode"
      ? {
          name: "Hex decode",
          description: "Decodes hexadecimal bytes (either case) to UTF-8 text; invalid UTF-8 becomes U+FFFD.",
          compute: String.raw`
async function compute(input) {
  const bytes = new Uint8Array(input.hex.length / 2);
  for (let i = 0; i < bytes.length; i++) bytes[i] = parseInt(input.hex.slice(2 * i, 2 * i + 2), 16);
  return { text: new TextDecoder().decode(bytes) };
}`,
          requestSchema: objectSchema({
            hex: { type: "string", maxLength: 100_000, pattern: "^(?:[0-9a-fA-F]{2})*$" },
          }),
          responseSchema: objectSchema({ text: { type: "string" } }),
          examples: [
            { input: { hex: "68656c6c6f" }, output: { text: "hello" } },
            { input: { hex: "" }, output: { text: "" } },
            { input: { hex: "E29883" }, output: { text: "☃" } },
          ],
          edgeCases: [{ input: { hex: "ff" }, note: "a byte that is not UTF-8 decodes to U+FFFD" }],
          maxResponseBytes: 200_000,
        }
      : {
          name: "Hex encode",
          description: "Encodes a UTF-8 text as lowercase hexadecimal bytes.",
          compute: String.raw`
async function compute(input) {
  const bytes = new TextEncoder().encode(input.text);
  return { hex: Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join(""), bytes: bytes.length };
}`,
          requestSchema: objectSchema({ text: text(50_000) }),
          responseSchema: objectSchema({
            hex: { type: "string", pattern: "^(?:[0-9a-f]{2})*$" },
            bytes: { type: "integer", minimum: 0 },
          }),
          examples: [
            { input: { text: "hello" }, output: { hex: "68656c6c6f", bytes: 5 } },
            { input: { text: "" }, output: { hex: "", bytes: 0 } },
            { input: { text: "☃" }, output: { hex: "e29883", bytes: 3 } },
          ],
          edgeCases: [{ input: { text: "\u0000" }, note: "a NUL character is the byte 00" }],
          maxResponseBytes: 250_000,
        },
};
