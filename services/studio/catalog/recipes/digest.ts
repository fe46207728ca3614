import { createHash } from "node:crypto";
import type { Recipe } from "../recipe.ts";
import { objectSchema, pickParameter, text } from "../recipe.ts";

const ALGORITHMS: [RegExp, string][] = [
  [/sha-?1(?!\d)/i, "SHA-1"],
  [/sha-?384/i, "SHA-384"],
  [/sha-?512/i, "SHA-512"],
  [/sha-?256/i, "SHA-256"],
];
const HEX_LENGTH: Record<string, number> = { "SHA-1": 40, "SHA-256": 64, "SHA-384": 96, "SHA-512": 128 };

/** Node's own digest: the independent oracle of the examples. */
const digest = (algorithm: string, value: string) =>
  createHash(algorithm.replace("-", "").toLowerCase()).update(value, "utf8").digest("hex");

/** SHA digest (SHA-1, SHA-256, SHA-384, SHA-512) of UTF-8 text as lowercase hex. */
export const digestRecipe: Recipe = {
  id: "digest",
  title: "Text digest",
  description: "Return the SHA-256 (or SHA-1, SHA-384, SHA-512) hash digest of a text as hex",
  synonyms: ["hash", "checksum", "fingerprint", "sha", "sha256", "sha-256", "sha512", "sha1", "digest", "hex"],
  category: "crypto",
  tags: ["hash", "digest", "sha"],
  parameters: (sentence) => ({ algorithm: pickParameter(sentence, ALGORITHMS, "SHA-256") }),
  build: ({ algorithm = "SHA-256" }) => ({
    name: `${algorithm} digest`,
    description: `The ${algorithm} digest of a UTF-8 text, as lowercase hex.`,
    compute: String.raw`
async function compute(input) {
  const bytes = new TextEncoder().encode(input.text);
  const digest = new Uint8Array(await crypto.subtle.digest(PARAMS.algorithm, bytes));
  return { algorithm: PARAMS.algorithm, hex: Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("") };
}`,
    requestSchema: objectSchema({ text: text(100_000) }),
    responseSchema: objectSchema({
      algorithm: { const: algorithm },
      hex: { type: "string", pattern: `^[0-9a-f]{${HEX_LENGTH[algorithm]}}$` },
    }),
    examples: ["hello", "", "The quick brown fox jumps over the lazy dog"].map((value) => ({
      input: { text: value },
      output: { algorithm, hex: digest(algorithm, value) },
    })),
    edgeCases: [
      { input: { text: "" }, note: "the empty text has a digest too" },
      { input: { text: "héllo ☃" }, note: "non-ASCII text is hashed as UTF-8" },
    ],
    maxResponseBytes: 512,
  }),
};
