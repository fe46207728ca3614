import fc from "fast-check";

type Schema = Record<string, unknown> | boolean;

const MAX_STRING = 64;
const MAX_ITEMS = 8;
/** The longest string and array drawn whatever the schema's minimum: longer ones are left to fail the schema. */
const MAX_MIN_LENGTH = 4_096;
const MAX_MIN_ITEMS = 256;
/** Every candidate string of the kinds users forget: each is drawn only where the schema's lengths allow it. */
const AWKWARD_STRINGS = ["", " ", "\n", "0", "-1", "null", "{}", "é", "☃", "\u0000"];

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function num(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

function anyJson(depth: number): fc.Arbitrary<unknown> {
  return fc.jsonValue({ maxDepth: Math.max(0, 2 - depth) });
}

/**
 * Strings for a string schema. Nothing here filters: a filter no value can pass (the awkward strings under a
 * `minLength` of 5, a pattern whose matches are all too long) made fast-check draw forever, synchronously, and the
 * whole studio stopped. Candidates the schema refuses are dropped by the caller instead.
 */
function stringArbitrary(s: Record<string, unknown>): fc.Arbitrary<string> {
  const minLength = Math.min(Math.max(0, Math.ceil(num(s.minLength) ?? 0)), MAX_MIN_LENGTH);
  const maxLength = Math.max(minLength, Math.min(num(s.maxLength) ?? MAX_STRING, minLength + MAX_STRING));
  const bounds = { minLength, maxLength };
  const plain = fc.string(bounds);
  if (typeof s.pattern === "string") {
    // A pattern fast-check cannot draw from (a lookahead, `\b`) gets plain strings, which the schema may refuse.
    try {
      return fc.stringMatching(new RegExp(s.pattern, "u"));
    } catch {
      return plain;
    }
  }
  const awkward = AWKWARD_STRINGS.filter((v) => v.length >= minLength && v.length <= maxLength);
  return fc.oneof(
    plain,
    fc.string({ ...bounds, unit: "grapheme" }),
    fc.string({ ...bounds, unit: "binary" }),
    ...(awkward.length > 0 ? [fc.constantFrom(...awkward)] : []),
  );
}

/** `[min, max]` for a bound schema, each side defaulting to `span` beyond the other (or to ±`span`): never inverted. */
function range(s: Record<string, unknown>, span: number): { min: number; max: number } {
  const low = num(s.minimum);
  const high = num(s.maximum);
  const min = low ?? (high !== undefined ? Math.min(high, 0) - span : -span);
  const max = high ?? Math.max(min, 0) + span;
  return max >= min ? { min, max } : { min, max: min };
}

function typed(type: string, s: Record<string, unknown>, depth: number): fc.Arbitrary<unknown> {
  switch (type) {
    case "string":
      return stringArbitrary(s);
    case "integer": {
      // fast-check draws safe integers: a bound beyond them is clamped, and the schema judges what is drawn.
      const { min, max } = range(s, 2_147_483_647);
      const low = Math.min(Math.max(Math.ceil(min), Number.MIN_SAFE_INTEGER), Number.MAX_SAFE_INTEGER);
      const high = Math.min(Math.max(Math.floor(max), low), Number.MAX_SAFE_INTEGER);
      return fc.integer({ min: low, max: high });
    }
    case "number": {
      const { min, max } = range(s, 1e15);
      return fc.double({ min, max, noNaN: true, noDefaultInfinity: true });
    }
    case "boolean":
      return fc.boolean();
    case "null":
      return fc.constant(null);
    case "array": {
      const items = s.items === undefined ? true : (s.items as Schema);
      const minLength = Math.min(Math.max(0, Math.ceil(num(s.minItems) ?? 0)), MAX_MIN_ITEMS);
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
