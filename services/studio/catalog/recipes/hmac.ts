import { createHmac } from "node:crypto";
import type { Recipe } from "../recipe.ts";
import { objectSchema, pickParameter, text } from "../recipe.ts";

const ALGORITHMS: [RegExp, string][] = [
  [/sha-?1(?!\d)/i, "SHA-1"],
  [/sha-?384/i, "SHA-384"],
  [/sha-?512/i, "SHA-512"],
];
const HEX_LENGTH: Record<string, number> = { "SHA-1": 40, "SHA-256": 64, "SHA-384": 96, "SHA-512": 128 };

/** HMAC of a message under a key given in the request (the key is the caller's, never stored). */
export const hmacRecipe: Recipe = {
  id: "hmac",
  title: "HMAC signature",
  description:
    "Compute the HMAC-SHA256 (or SHA-1, SHA-384, SHA-512) message authentication code of a message with a key",
  synonyms: [
    "hmac",
    "mac",
    "sign",
    "signature",
    "keyed",
    "secret",
    "hash",
    "authentication",
    "code",
    "webhook",
    "sha1",
    "sha256",
    "sha384",
    "sha512",
    "shared",
  ],
  category: "crypto",
  tags: ["hmac", "signature", "sha"],
  parameters: (sentence) => ({ algorithm: pickParameter(sentence, ALGORITHMS, "SHA-256") }),
  build: ({ algorithm = "SHA-256" }) => ({
    name: `HMAC-${algorithm}`,
    description: `The HMAC-${algorithm} of a UTF-8 message under a UTF-8 key given in the request, as lowercase hex.`,
    compute: String.raw`
async function compute(input) {
  const encoder = new TextEncoder();
  const key = await crypto.subtle.importKey("raw", encoder.encode(input.key), { name: "HMAC", hash: PARAMS.algorithm }, false, ["sign"]);
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", key, encoder.encode(input.message)));
  return { algorithm: "HMAC-" + PARAMS.algorithm, hex: Array.from(mac, (b) => b.toString(16).padStart(2, "0")).join("") };
}`,
    requestSchema: objectSchema({ key: text(1_000, 1), message: text(100_000) }),
    responseSchema: objectSchema({
      algorithm: { const: `HMAC-${algorithm}` },
      hex: { type: "string", pattern: `^[0-9a-f]{${HEX_LENGTH[algorithm]}}$` },
    }),
    examples: [
      ["key", "The quick brown fox jumps over the lazy dog"],
      ["secret", ""],
      ["k", "hello"],
    ].map(([key = "", message = ""]) => ({
      input: { key, message },
      output: {
        algorithm: `HMAC-${algorithm}`,
        hex: createHmac(algorithm.replace("-", "").toLowerCase(), key).update(message).digest("hex"),
      },
    })),
    edgeCases: [{ input: { key: "ключ", message: "☃" }, note: "key and message are UTF-8" }],
    maxResponseBytes: 512,
  }),
};
