import type { Recipe } from "../recipe.ts";
import { objectSchema, pickParameter, text } from "../recipe.ts";

const ALPHABET = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";

/** Base58 (the Bitcoin alphabet) encoding of UTF-8 text, or decoding back to bytes and text. */
export const base58Recipe: Recipe = {
  id: "base58",
  title: "Base58",
  description: "Encode a text to base58 with the Bitcoin alphabet, or decode base58 back to bytes and text",
  synonyms: ["base58", "bitcoin", "btc", "ipfs", "encode", "decode", "encoding", "bytes", "utf8"],
  category: "encoding",
  tags: ["base58", "encoding"],
  parameters: (sentence) => ({
    mode: pickParameter(
      sentence,
      [[/decod|from base ?58|base ?58 (?:back )?(?:in)?to|\bback (?:in)?to\b/i, "decode"]],
      "encode",
    ),
  }),
  build: ({ mode = "encode" }) =>
    mode === "decode"
      ? {
          name: "Base58 decode",
          description:
            "Decodes base58 (Bitcoin alphabet; each leading 1 is a zero byte) to hex bytes and UTF-8 text (invalid UTF-8 becomes U+FFFD).",
          compute: String.raw`
const ALPHABET = "${ALPHABET}";
async function compute(input) {
  let n = 0n;
  for (const c of input.base58) n = n * 58n + BigInt(ALPHABET.indexOf(c));
  let hex = n === 0n ? "" : n.toString(16);
  if (hex.length % 2) hex = "0" + hex;
  hex = "00".repeat(input.base58.match(/^1*/)[0].length) + hex;
  const bytes = new Uint8Array(hex.length / 2);
  for (let i = 0; i < bytes.length; i++) bytes[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return { hex, text: new TextDecoder().decode(bytes) };
}`,
          requestSchema: objectSchema({
            base58: { type: "string", maxLength: 2_000, pattern: `^[${ALPHABET}]*$` },
          }),
          responseSchema: objectSchema({
            hex: { type: "string", pattern: "^(?:[0-9a-f]{2})*$" },
            text: { type: "string" },
          }),
          examples: [
            {
              input: { base58: "2NEpo7TZRRrLZSi2U" },
              output: { hex: "48656c6c6f20576f726c6421", text: "Hello World!" },
            },
            { input: { base58: "11233QC4" }, output: { hex: "0000287fb4cd", text: "\u0000\u0000(\u007f\ufffd\ufffd" } },
            { input: { base58: "" }, output: { hex: "", text: "" } },
          ],
          edgeCases: [{ input: { base58: "1" }, note: "a single 1 is one zero byte" }],
          maxResponseBytes: 16_384,
        }
      : {
          name: "Base58 encode",
          description: "Encodes a UTF-8 text as base58 (Bitcoin alphabet; each leading zero byte is a 1).",
          compute: String.raw`
const ALPHABET = "${ALPHABET}";
async function compute(input) {
  const bytes = new TextEncoder().encode(input.text);
  let n = 0n;
  for (const b of bytes) n = n * 256n + BigInt(b);
  let out = "";
  while (n > 0n) { out = ALPHABET[Number(n % 58n)] + out; n /= 58n; }
  let zeros = 0;
  while (zeros < bytes.length && bytes[zeros] === 0) zeros++;
  return { base58: "1".repeat(zeros) + out };
}`,
          requestSchema: objectSchema({ text: text(1_000) }),
          responseSchema: objectSchema({ base58: { type: "string", pattern: `^[${ALPHABET}]*$` } }),
          examples: [
            { input: { text: "Hello World!" }, output: { base58: "2NEpo7TZRRrLZSi2U" } },
            {
              input: { text: "The quick brown fox jumps over the lazy dog." },
              output: { base58: "USm3fpXnKG5EUBx2ndxBDMPVciP5hGey2Jh4NDv6gmeo1LkMeiKrLJUUBk6Z" },
            },
            { input: { text: "" }, output: { base58: "" } },
          ],
          edgeCases: [{ input: { text: "\u0000a" }, note: "a leading zero byte becomes a leading 1" }],
          maxResponseBytes: 8_192,
        },
};
