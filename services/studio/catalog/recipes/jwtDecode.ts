import type { Recipe } from "../recipe.ts";
import { objectSchema } from "../recipe.ts";

const JWT =
  "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c";

const json = { type: ["object", "null"] };

/** The header and claims of a JSON Web Token, read without checking its signature. */
export const jwtDecodeRecipe: Recipe = {
  id: "jwt-decode",
  title: "JWT decode",
  description: "Decode a JSON Web Token (JWT) and show its header, payload and claims such as the expiry time",
  synonyms: [
    "jwt",
    "json",
    "web",
    "token",
    "decode",
    "inspect",
    "parse",
    "claims",
    "header",
    "payload",
    "exp",
    "expiry",
    "jws",
  ],
  category: "data",
  tags: ["jwt", "decode", "token"],
  parameters: () => ({}),
  build: () => ({
    name: "JWT decode",
    description:
      "The decoded header and payload of a compact JWT, the expiry (exp) and issue (iat) times as ISO dates, and the signature as base64url; the signature is not checked. A token that does not decode is valid: false with the reason.",
    compute: String.raw`
function part(segment) {
  const b64 = segment.replace(/-/g, "+").replace(/_/g, "/");
  const binary = atob(b64 + "=".repeat((4 - (b64.length % 4)) % 4));
  const value = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(Uint8Array.from(binary, (c) => c.charCodeAt(0))));
  if (value === null || typeof value !== "object" || Array.isArray(value)) throw new TypeError("not a JSON object");
  return value;
}
function time(seconds) {
  return typeof seconds === "number" && Math.abs(seconds) <= 8.64e12 ? new Date(Math.floor(seconds) * 1000).toISOString() : null;
}
async function compute(input) {
  const [h, p, signature] = input.token.split(".");
  try {
    const header = part(h), payload = part(p);
    return { valid: true, header, payload, signature, expiresAt: time(payload.exp), issuedAt: time(payload.iat), reason: null };
  } catch {
    return { valid: false, header: null, payload: null, signature: null, expiresAt: null, issuedAt: null, reason: "the header or the payload is not a base64url-encoded JSON object" };
  }
}`,
    requestSchema: objectSchema({
      token: { type: "string", maxLength: 16_000, pattern: "^[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]*$" },
    }),
    responseSchema: objectSchema({
      valid: { type: "boolean" },
      header: json,
      payload: json,
      signature: { type: ["string", "null"] },
      expiresAt: { type: ["string", "null"] },
      issuedAt: { type: ["string", "null"] },
      reason: { type: ["string", "null"] },
    }),
    examples: [
      {
        input: { token: JWT },
        output: {
          valid: true,
          header: { alg: "HS256", typ: "JWT" },
          payload: { sub: "1234567890", name: "John Doe", iat: 1516239022 },
          signature: "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
          expiresAt: null,
          issuedAt: "2018-01-18T01:30:22.000Z",
          reason: null,
        },
      },
      {
        input: { token: "eyJhbGciOiJub25lIn0.eyJleHAiOjE3MDAwMDAwMDB9." },
        output: {
          valid: true,
          header: { alg: "none" },
          payload: { exp: 1700000000 },
          signature: "",
          expiresAt: "2023-11-14T22:13:20.000Z",
          issuedAt: null,
          reason: null,
        },
      },
      {
        input: { token: "bm90.anNvbg.x" },
        output: {
          valid: false,
          header: null,
          payload: null,
          signature: null,
          expiresAt: null,
          issuedAt: null,
          reason: "the header or the payload is not a base64url-encoded JSON object",
        },
      },
    ],
    edgeCases: [{ input: { token: "e30.W10." }, note: "a payload that is JSON but not an object" }],
    maxResponseBytes: 100_000,
  }),
};
