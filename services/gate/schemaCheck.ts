import type { ValidateFunction } from "ajv";
import type { JsonSchema } from "./compileSchema.ts";
import { schemaMessage } from "./schemaMessage.ts";
import { checkOffThread, startSlowSchemaChecks } from "./slowSchemaChecks.ts";

/**
 * What a schema says of a value: valid; or invalid with its first error; or not known, because the value is nested too
 * deeply to walk (`too_deep`), its check ran past slowSchemaChecks' deadline (`timeout`), or too many checks wait
 * (`busy`).
 */
export type SchemaOutcome =
  | { kind: "valid" }
  | { kind: "invalid"; message: string }
  | { kind: "too_deep" | "timeout" | "busy"; message: string };

/** A compiled schema's check of one value; a promise when it runs off the event loop (see createSchemaCheck). */
export type SchemaCheck = (
  value: unknown,
  options?: { queue?: "bounded" | "always" },
) => SchemaOutcome | Promise<SchemaOutcome>;

const SLOW_KEYWORDS = new Set(["pattern", "patternProperties", "uniqueItems"]);
/** Keywords whose value maps names (a property's, a definition's) to schemas: the names are not keywords. */
const SCHEMA_MAPS = new Set(["properties", "$defs", "definitions", "dependentSchemas", "dependencies"]);

/**
 * Whether a schema holds a keyword whose check may take more than linear time in the value: a regular expression
 * (`pattern`, `patternProperties`: a backtracking engine can take exponential or polynomial time on a crafted string,
 * whatever shape guard compileSchema applies) or `uniqueItems` (every pair of items compared).
 * @example mayCheckSlowly({ type: "array", uniqueItems: true }) // true
 */
export function mayCheckSlowly(schema: unknown): boolean {
  if (Array.isArray(schema)) return schema.some(mayCheckSlowly);
  if (schema === null || typeof schema !== "object") return false;
  return Object.entries(schema).some(([key, value]) => {
    if (SLOW_KEYWORDS.has(key) && value !== false) return true;
    if (SCHEMA_MAPS.has(key) && value !== null && typeof value === "object")
      return Object.values(value).some(mayCheckSlowly);
    return mayCheckSlowly(value);
  });
}

/** A check on the event loop, for a schema no value can make slow. */
export function checkWith(validate: ValidateFunction, value: unknown): SchemaOutcome {
  try {
    return validate(value) === true ? { kind: "valid" } : { kind: "invalid", message: schemaMessage(validate) };
  } catch {
    return { kind: "too_deep", message: "the value is too deeply nested to check" };
  }
}

/**
 * The check of `validate` (compiled from `schema` by compileSchema): on the event loop when no value can make it slow,
 * else in a worker thread shared by the process under a deadline (slowSchemaChecks.ts), so that a crafted value
 * sent to one resource stalls no other request of the process. Checks of a request body wait in a bounded queue
 * (`busy` past it); a handler's response is always queued.
 * @example const check = createSchemaCheck(schema, validate); const outcome = await check(body)
 */
export function createSchemaCheck(schema: JsonSchema, validate: ValidateFunction): SchemaCheck {
  if (!mayCheckSlowly(schema)) return (value) => checkWith(validate, value);
  startSlowSchemaChecks();
  const key = JSON.stringify(schema);
  return (value, options) => checkOffThread(key, value, options?.queue ?? "bounded");
}
