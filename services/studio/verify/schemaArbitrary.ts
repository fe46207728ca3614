import fc from "fast-check";

type Schema = Record<string, unknown> | boolean;

const MAX_STRING = 64;
const MAX_ITEMS = 8;

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function num(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

function anyJson(depth: number): fc.Arbitrary<unknown> {
  return fc.jsonValue({ maxDepth: Math.max(0, 2 - depth) });
}

function stringArbitrary(s: Record<string, unknown>): fc.Arbitrary<string> {
  const minLength = num(s.minLength) ?? 0;
  const maxLength = Math.max(minLength, Math.min(num(s.maxLength) ?? MAX_STRING, minLength + MAX_STRING));
  if (typeof s.pattern === "string") {
    const pattern = new RegExp(s.pattern, "u");
    return fc
      .stringMatching(pattern)
      .filter((v) => [...v].length >= minLength && [...v].length <= (num(s.maxLength) ?? Infinity));
  }
  const bounds = { minLength, maxLength };
  return fc.oneof(
    fc.string(bounds),
    fc.string({ ...bounds, unit: "grapheme" }),
    fc.string({ ...bounds, unit: "binary" }),
    fc
      .constantFrom("", " ", "\n", "0", "-1", "null", "{}", "é", "☃", "\u0000")
      .filter((v) => v.length >= minLength && v.length <= maxLength),
  );
}

function typed(type: string, s: Record<string, unknown>, depth: number): fc.Arbitrary<unknown> {
  switch (type) {
    case "string":
      return stringArbitrary(s);
    case "integer": {
      const min = Math.ceil(num(s.minimum) ?? -2_147_483_648);
      const max = Math.floor(num(s.maximum) ?? 2_147_483_647);
      return fc.integer({ min, max });
    }
    case "number":
      return fc.double({
        min: num(s.minimum) ?? -1e15,
        max: num(s.maximum) ?? 1e15,
        noNaN: true,
        noDefaultInfinity: true,
      });
    case "boolean":
      return fc.boolean();
    case "null":
      return fc.constant(null);
    case "array": {
      const items = s.items === undefined ? true : (s.items as Schema);
      const minLength = num(s.minItems) ?? 0;
      const maxLength = Math.max(minLength, Math.min(num(s.maxItems) ?? MAX_ITEMS, minLength + MAX_ITEMS));
      return fc.array(schemaArbitrary(items, depth + 1), { minLength, maxLength });
    }
    default:
      return objectArbitrary(s, depth);
  }
}

function objectArbitrary(s: Record<string, unknown>, depth: number): fc.Arbitrary<unknown> {
  const properties = isObject(s.properties) ? s.properties : {};
  const required = Array.isArray(s.required) ? s.required.filter((k): k is string => typeof k === "string") : [];
  const keys = Object.keys(properties);
  const record = fc.record(
    Object.fromEntries(keys.map((key) => [key, schemaArbitrary(properties[key] as Schema, depth + 1)])),
    { requiredKeys: keys.filter((key) => required.includes(key)) },
  );
  const additional = s.additionalProperties;
  if (additional === false || (keys.length > 0 && additional === undefined)) return record;
  const extra = fc.dictionary(
    fc.string({ maxLength: 12 }).filter((key) => !keys.includes(key)),
    isObject(additional) ? schemaArbitrary(additional, depth + 1) : anyJson(depth + 1),
    { maxKeys: depth > 2 ? 0 : 4 },
  );
  return fc.tuple(record, extra).map(([known, more]) => ({ ...more, ...known }));
}

/**
 * A fast-check arbitrary of values shaped by a JSON Schema (type, enum, const, anyOf/oneOf, properties, required,
 * additionalProperties, items, lengths, bounds, pattern). Values are candidates: the caller keeps those the schema
 * accepts (ajv), since keywords such as `not` are not modelled.
 * @example fc.sample(schemaArbitrary({ type: "string", maxLength: 3 }), 5)
 */
export function schemaArbitrary(schema: Schema, depth = 0): fc.Arbitrary<unknown> {
  if (schema === true || !isObject(schema)) return anyJson(depth);
  if ("const" in schema) return fc.constant(schema.const);
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return fc.constantFrom(...schema.enum);
  const branches = Array.isArray(schema.anyOf) ? schema.anyOf : Array.isArray(schema.oneOf) ? schema.oneOf : undefined;
  if (branches && branches.length > 0) {
    const { anyOf: _anyOf, oneOf: _oneOf, ...rest } = schema;
    return fc.oneof(
      ...branches.map((branch) => schemaArbitrary(isObject(branch) ? { ...rest, ...branch } : branch, depth)),
    );
  }
  const type = schema.type;
  if (Array.isArray(type) && type.length > 0) return fc.oneof(...type.map((t) => typed(String(t), schema, depth)));
  if (typeof type === "string") return typed(type, schema, depth);
  if (isObject(schema.properties)) return objectArbitrary(schema, depth);
  return anyJson(depth);
}
