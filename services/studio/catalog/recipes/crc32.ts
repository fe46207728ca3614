import type { Recipe } from "../recipe.ts";
import { objectSchema, text } from "../recipe.ts";

/** The CRC-32 (IEEE 802.3, as in zip and PNG) checksum of a text. */
export const crc32Recipe: Recipe = {
  id: "crc32",
  title: "CRC-32 checksum",
  description: "Compute the CRC-32 checksum of a text, as used by zip, gzip and PNG",
  synonyms: ["crc", "crc32", "checksum", "cyclic", "redundancy", "zip", "gzip", "png", "ieee"],
  category: "crypto",
  tags: ["checksum", "crc32"],
  parameters: () => ({}),
  build: () => ({
    name: "CRC-32 checksum",
    description:
      "The CRC-32 (IEEE 802.3, reflected, polynomial 0xEDB88320) of the UTF-8 bytes of a text, as 8 hex digits and as an unsigned integer.",
    compute: String.raw`
const TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
async function compute(input) {
  let crc = 0xffffffff;
  for (const byte of new TextEncoder().encode(input.text)) crc = TABLE[(crc ^ byte) & 255] ^ (crc >>> 8);
  const value = (crc ^ 0xffffffff) >>> 0;
  return { hex: value.toString(16).padStart(8, "0"), value };
}`,
    requestSchema: objectSchema({ text: text(200_000) }),
    responseSchema: objectSchema({
      hex: { type: "string", pattern: "^[0-9a-f]{8}$" },
      value: { type: "integer", minimum: 0, maximum: 4_294_967_295 },
    }),
    examples: [
      { input: { text: "123456789" }, output: { hex: "cbf43926", value: 3_421_780_262 } },
      { input: { text: "" }, output: { hex: "00000000", value: 0 } },
      {
        input: { text: "The quick brown fox jumps over the lazy dog" },
        output: { hex: "414fa339", value: 1_095_738_169 },
      },
    ],
    edgeCases: [{ input: { text: "☃" }, note: "multi-byte characters are hashed as UTF-8" }],
    maxResponseBytes: 64,
  }),
};
