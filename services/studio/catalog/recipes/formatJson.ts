import type { Recipe } from "../recipe.ts";
import { objectSchema, pickParameter } from "../recipe.ts";

/** A JSON document pretty-printed, minified, optionally with sorted keys; invalid JSON reported as data. */
export const formatJsonRecipe: Recipe = {
  id: "format-json",
  title: "Format JSON",
  description:
    "Pretty-print or minify a JSON document, optionally with its object keys sorted, and report invalid JSON",
  synonyms: [
    "json",
    "format",
    "formatter",
    "pretty",
    "print",
    "prettify",
    "beautify",
    "indent",
    "minify",
    "compact",
    "sort",
    "keys",
    "lint",
    "document",
    "document",
    "object",
    "payload",
    "whitespace",
    "spaces",
    "remove",
    "file",
  ],
  category: "data",
  tags: ["json", "format"],
  parameters: (sentence) => ({
    style: pickParameter(sentence, [[/\bminif|\bcompact|\bcompress|\bwhitespace\b/i, "minify"]], "pretty"),
    sortKeys: /\bsort/i.test(sentence) ? "yes" : "no",
  }),
  build: ({ style = "pretty", sortKeys = "no" }) => ({
    name: `${style === "minify" ? "Minify" : "Pretty-print"} JSON${sortKeys === "yes" ? " with sorted keys" : ""}`,
    description: `${style === "minify" ? "Minifies a JSON text" : 'Pretty-prints a JSON text ("indent" spaces, default 2)'}${sortKeys === "yes" ? " with object keys sorted (integer-like keys first, as JavaScript orders them)" : ""}; a text that is not JSON, nested deeper than 64 levels or formatted longer than 500,000 characters is valid: false with the reason.`,
    compute: String.raw`
const MAX_DEPTH = 64, MAX_LENGTH = 500000;
function prepare(value, sortKeys) {
  const root = { v: value };
  const stack = [[root, "v", 0]];
  while (stack.length) {
    const [holder, key, depth] = stack.pop();
    const v = holder[key];
    if (v === null || typeof v !== "object") continue;
    if (depth >= MAX_DEPTH) return null;
    if (Array.isArray(v)) v.forEach((_, i) => stack.push([v, i, depth + 1]));
    else if (!sortKeys) for (const k of Object.keys(v)) stack.push([v, k, depth + 1]);
    else {
      const copy = Object.create(null);
      for (const k of Object.keys(v).sort()) copy[k] = v[k];
      holder[key] = copy;
      for (const k of Object.keys(copy)) stack.push([copy, k, depth + 1]);
    }
  }
  return root;
}
const fail = (error) => ({ valid: false, json: null, error });
async function compute(input) {
  let value;
  try { value = JSON.parse(input.json); } catch { return fail("the text is not valid JSON"); }
  const root = prepare(value, PARAMS.sortKeys === "yes");
  if (!root) return fail("the JSON is nested deeper than " + MAX_DEPTH + " levels");
  const indent = PARAMS.style === "minify" ? 0 : input.indent === undefined ? 2 : input.indent;
  const json = JSON.stringify(root.v, null, indent);
  return json.length > MAX_LENGTH ? fail("the formatted JSON is longer than " + MAX_LENGTH + " characters") : { valid: true, json, error: null };
}`,
    requestSchema: objectSchema(
      { json: { type: "string", maxLength: 20_000 }, indent: { type: "integer", minimum: 0, maximum: 8 } },
      ["indent"],
    ),
    responseSchema: objectSchema({
      valid: { type: "boolean" },
      json: { type: ["string", "null"] },
      error: { type: ["string", "null"] },
    }),
    examples: [
      {
        input: { json: '{"b":1,"a":[true,null]}' },
        output: {
          valid: true,
          json:
            style === "minify"
              ? sortKeys === "yes"
                ? '{"a":[true,null],"b":1}'
                : '{"b":1,"a":[true,null]}'
              : sortKeys === "yes"
                ? '{\n  "a": [\n    true,\n    null\n  ],\n  "b": 1\n}'
                : '{\n  "b": 1,\n  "a": [\n    true,\n    null\n  ]\n}',
          error: null,
        },
      },
      {
        input: { json: " [ 1 , 2 ] " },
        output: { valid: true, json: style === "minify" ? "[1,2]" : "[\n  1,\n  2\n]", error: null },
      },
      { input: { json: '{"a": }' }, output: { valid: false, json: null, error: "the text is not valid JSON" } },
    ],
    edgeCases: [{ input: { json: '"just a string"', indent: 0 }, note: "a JSON string alone is a document" }],
    maxResponseBytes: 1_600_000,
  }),
};
