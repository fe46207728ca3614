import type { Recipe } from "../recipe.ts";

/** The value at an RFC 6901 JSON Pointer in a document, or `found: false`. */
export const jsonPointerRecipe: Recipe = {
  id: "json-pointer",
  title: "JSON pointer pick",
  description: "Pick the value at a JSON Pointer path from a JSON document",
  synonyms: [
    "json",
    "pointer",
    "pick",
    "path",
    "select",
    "get",
    "field",
    "extract",
    "rfc6901",
    "jsonpath",
    "document",
    "object",
    "payload",
  ],
  category: "data",
  tags: ["json", "pointer"],
  parameters: () => ({}),
  build: () => ({
    name: "JSON pointer pick",
    description: "The value at an RFC 6901 JSON Pointer in a JSON document; found is false when nothing is there.",
    compute: String.raw`
async function compute(input) {
  let current = input.document;
  if (input.pointer === "") return { found: true, value: current };
  for (const raw of input.pointer.slice(1).split("/")) {
    const key = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    if (Array.isArray(current)) {
      if (!/^(0|[1-9][0-9]*)$/.test(key) || Number(key) >= current.length) return { found: false };
      current = current[Number(key)];
    } else if (current !== null && typeof current === "object" && Object.prototype.hasOwnProperty.call(current, key)) {
      current = current[key];
    } else {
      return { found: false };
    }
  }
  return { found: true, value: current };
}`,
    requestSchema: {
      type: "object",
      additionalProperties: false,
      required: ["document", "pointer"],
      properties: { document: {}, pointer: { type: "string", maxLength: 1_000, pattern: "^(?:/(?:[^~/]|~[01])*)*$" } },
    },
    responseSchema: {
      type: "object",
      additionalProperties: false,
      required: ["found"],
      properties: { found: { type: "boolean" }, value: {} },
    },
    examples: [
      { input: { document: { a: { b: [10, 20] } }, pointer: "/a/b/1" }, output: { found: true, value: 20 } },
      { input: { document: { "x/y": 1 }, pointer: "/x~1y" }, output: { found: true, value: 1 } },
      { input: { document: { a: 1 }, pointer: "/b" }, output: { found: false } },
    ],
    edgeCases: [{ input: { document: [1], pointer: "/01" }, note: "leading zeros are no array index" }],
    maxResponseBytes: 200_000,
  }),
};
