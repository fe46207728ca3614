import type { Recipe } from "../recipe.ts";
import { objectSchema } from "../recipe.ts";

/** Validates a JSON value against a JSON Schema (the common keywords), errors as data. */
export const validateJsonRecipe: Recipe = {
  id: "json-schema-validate",
  title: "JSON Schema validation",
  description: "Validate a JSON value against a JSON Schema and list the validation errors",
  synonyms: [
    "json",
    "schema",
    "validate",
    "validation",
    "validator",
    "check",
    "conform",
    "jsonschema",
    "document",
    "object",
    "payload",
    "file",
  ],
  category: "data",
  tags: ["json", "schema", "validation"],
  parameters: () => ({}),
  build: () => ({
    name: "JSON Schema validation",
    description:
      "Validates a value against a JSON Schema (type, enum, const, properties, required, additionalProperties, items, min/max, minLength/maxLength, minItems/maxItems); errors as data.",
    compute: String.raw`
function typeOf(v) {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  if (typeof v === "number") return Number.isInteger(v) ? "integer" : "number";
  return typeof v;
}
function same(a, b) { return JSON.stringify(a) === JSON.stringify(b); }
function check(schema, value, path, errors, depth) {
  if (errors.length >= 50 || depth > 32) return;
  if (schema === false) { errors.push({ path, message: "no value is allowed here" }); return; }
  if (schema === null || typeof schema !== "object" || Array.isArray(schema)) return;
  const t = typeOf(value);
  if (schema.type !== undefined) {
    const types = Array.isArray(schema.type) ? schema.type : [schema.type];
    const ok = types.some((x) => x === t || (x === "number" && t === "integer"));
    if (!ok) { errors.push({ path, message: "must be " + types.join(" or ") }); return; }
  }
  if (Array.isArray(schema.enum) && !schema.enum.some((e) => same(e, value))) errors.push({ path, message: "must be one of the enum values" });
  if ("const" in schema && !same(schema.const, value)) errors.push({ path, message: "must equal the constant" });
  if (typeof value === "number") {
    if (typeof schema.minimum === "number" && value < schema.minimum) errors.push({ path, message: "must be >= " + schema.minimum });
    if (typeof schema.maximum === "number" && value > schema.maximum) errors.push({ path, message: "must be <= " + schema.maximum });
  }
  if (typeof value === "string") {
    const n = Array.from(value).length;
    if (typeof schema.minLength === "number" && n < schema.minLength) errors.push({ path, message: "must have at least " + schema.minLength + " characters" });
    if (typeof schema.maxLength === "number" && n > schema.maxLength) errors.push({ path, message: "must have at most " + schema.maxLength + " characters" });
  }
  if (Array.isArray(value)) {
    if (typeof schema.minItems === "number" && value.length < schema.minItems) errors.push({ path, message: "must have at least " + schema.minItems + " items" });
    if (typeof schema.maxItems === "number" && value.length > schema.maxItems) errors.push({ path, message: "must have at most " + schema.maxItems + " items" });
    if (schema.items !== undefined && typeof schema.items !== "number") value.forEach((item, i) => check(schema.items, item, path + "/" + i, errors, depth + 1));
  }
  if (t === "object") {
    const props = schema.properties && typeof schema.properties === "object" ? schema.properties : {};
    if (Array.isArray(schema.required))
      for (const key of schema.required) if (typeof key === "string" && !Object.prototype.hasOwnProperty.call(value, key)) errors.push({ path, message: "must have property " + key });
    for (const key of Object.keys(value)) {
      const escaped = path + "/" + key.replace(/~/g, "~0").replace(/\//g, "~1");
      if (Object.prototype.hasOwnProperty.call(props, key)) check(props[key], value[key], escaped, errors, depth + 1);
      else if (schema.additionalProperties === false) errors.push({ path: escaped, message: "is not allowed" });
      else if (schema.additionalProperties && typeof schema.additionalProperties === "object") check(schema.additionalProperties, value[key], escaped, errors, depth + 1);
    }
  }
}
async function compute(input) {
  const errors = [];
  check(input.schema, input.value, "", errors, 0);
  return { valid: errors.length === 0, errors };
}`,
    requestSchema: {
      type: "object",
      additionalProperties: false,
      required: ["schema", "value"],
      properties: { schema: { type: ["object", "boolean"] }, value: {} },
    },
    responseSchema: objectSchema({
      valid: { type: "boolean" },
      errors: {
        type: "array",
        maxItems: 50,
        items: objectSchema({ path: { type: "string" }, message: { type: "string" } }),
      },
    }),
    examples: [
      {
        input: { schema: { type: "object", required: ["a"], properties: { a: { type: "integer" } } }, value: { a: 1 } },
        output: { valid: true, errors: [] },
      },
      {
        input: {
          schema: { type: "object", required: ["a"], properties: { a: { type: "integer" } } },
          value: { a: "x" },
        },
        output: { valid: false, errors: [{ path: "/a", message: "must be integer" }] },
      },
      {
        input: { schema: { type: "array", items: { type: "string", maxLength: 2 } }, value: ["ok", "long"] },
        output: { valid: false, errors: [{ path: "/1", message: "must have at most 2 characters" }] },
      },
    ],
    edgeCases: [{ input: { schema: false, value: 1 }, note: "the false schema refuses everything" }],
    maxResponseBytes: 20_000,
  }),
};
