import type { ValidateFunction } from "ajv";
import { Ajv } from "ajv";
import { GateConfigError } from "./gateConfigError.ts";

/** A JSON Schema as a creator supplies it. */
export type JsonSchema = Record<string, unknown> | boolean;

const characterClass = /\[(?:[^\]\\]|\\.)*\]/g;
const nestedQuantifier = /\((?:[^()\\]|\\.)*(?:[*+]|\{\d+,\d*\})(?:[^()\\]|\\.)*\)(?:[*+]|\{\d+,\d*\})/;

function patternsOf(schema: unknown, found: string[] = []): string[] {
  if (Array.isArray(schema)) {
    for (const item of schema) patternsOf(item, found);
  } else if (schema !== null && typeof schema === "object") {
    for (const [key, value] of Object.entries(schema)) {
      if (key === "pattern" && typeof value === "string") found.push(value);
      if (key === "patternProperties" && value !== null && typeof value === "object") found.push(...Object.keys(value));
      patternsOf(value, found);
    }
  }
  return found;
}

/**
 * Compiles a creator's JSON Schema with ajv (strict keywords, formats as annotations, first error only), refusing
 * patterns with a nested quantifier such as `(a+)+`, which could stall the gate on a crafted input.
 * @throws {GateConfigError} when the schema does not compile or holds an unsafe pattern.
 * @example const validate = compileSchema(schema, 'requestSchema')
 */
export function compileSchema(schema: JsonSchema, name: string): ValidateFunction {
  const unsafe = patternsOf(schema).filter((pattern) => {
    const shape = pattern.replace(characterClass, "C");
    return nestedQuantifier.test(shape) || /\\\d/.test(shape);
  });
  if (unsafe.length > 0)
    throw new GateConfigError(`${name}: pattern ${JSON.stringify(unsafe[0])} may backtrack catastrophically`);
  const ajv = new Ajv({
    strict: true,
    strictTypes: false,
    strictTuples: false,
    strictRequired: false,
    validateFormats: false,
    allErrors: false,
    logger: false,
  });
  try {
    return ajv.compile(schema);
  } catch (error) {
    throw new GateConfigError(`${name}: ${(error as Error).message}`);
  }
}
