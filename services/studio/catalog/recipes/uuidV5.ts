import type { Recipe } from "../recipe.ts";
import { objectSchema, text } from "../recipe.ts";

const NAMESPACES = {
  dns: "6ba7b810-9dad-11d1-80b4-00c04fd430c8",
  url: "6ba7b811-9dad-11d1-80b4-00c04fd430c8",
  oid: "6ba7b812-9dad-11d1-80b4-00c04fd430c8",
  x500: "6ba7b814-9dad-11d1-80b4-00c04fd430c8",
};
const UUID = "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$";

/** Name-based UUID version 5 (RFC 9562, SHA-1) of a name in a namespace. */
export const uuidV5Recipe: Recipe = {
  id: "uuid-v5",
  title: "UUID v5",
  description: "Generate the deterministic name-based UUID version 5 of a name in a namespace",
  synonyms: ["uuid", "guid", "v5", "identifier", "id", "namespace", "deterministic", "rfc4122", "rfc9562"],
  category: "identifiers",
  tags: ["uuid", "identifier"],
  parameters: () => ({}),
  build: () => ({
    name: "UUID v5",
    description: "The RFC 9562 version 5 UUID of a name in a namespace (dns, url, oid, x500 or a UUID).",
    compute: String.raw`
const NAMESPACES = ${JSON.stringify(NAMESPACES)};
async function compute(input) {
  const ns = (NAMESPACES[input.namespace] || input.namespace).replace(/-/g, "");
  const name = new TextEncoder().encode(input.name);
  const bytes = new Uint8Array(16 + name.length);
  for (let i = 0; i < 16; i++) bytes[i] = parseInt(ns.slice(2 * i, 2 * i + 2), 16);
  bytes.set(name, 16);
  const hash = new Uint8Array(await crypto.subtle.digest("SHA-1", bytes)).slice(0, 16);
  hash[6] = (hash[6] & 0x0f) | 0x50;
  hash[8] = (hash[8] & 0x3f) | 0x80;
  const hex = Array.from(hash, (b) => b.toString(16).padStart(2, "0")).join("");
  return { uuid: hex.slice(0, 8) + "-" + hex.slice(8, 12) + "-" + hex.slice(12, 16) + "-" + hex.slice(16, 20) + "-" + hex.slice(20) };
}`,
    requestSchema: objectSchema({
      name: text(10_000),
      namespace: { anyOf: [{ enum: Object.keys(NAMESPACES) }, { type: "string", pattern: UUID }] },
    }),
    responseSchema: objectSchema({
      uuid: { type: "string", pattern: "^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$" },
    }),
    examples: [
      { input: { name: "python.org", namespace: "dns" }, output: { uuid: "886313e1-3b8a-5372-9b90-0c9aee199e5d" } },
      {
        input: { name: "www.example.com", namespace: "dns" },
        output: { uuid: "2ed6657d-e927-568b-95e1-2665a8aea6a2" },
      },
      {
        input: { name: "python.org", namespace: "6ba7b810-9dad-11d1-80b4-00c04fd430c8" },
        output: { uuid: "886313e1-3b8a-5372-9b90-0c9aee199e5d" },
      },
    ],
    edgeCases: [{ input: { name: "", namespace: "url" }, note: "the empty name has a UUID too" }],
    maxResponseBytes: 256,
  }),
};
