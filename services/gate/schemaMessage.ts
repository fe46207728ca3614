import type { ValidateFunction } from "ajv";

/**
 * The first validation error of an ajv run, as a short sentence (at most 300 characters).
 * @example schemaMessage(validate) // "/text must be string"
 */
export function schemaMessage(validate: ValidateFunction): string {
  const [error] = validate.errors ?? [];
  if (!error) return "does not match the schema";
  return `${error.instancePath || "(root)"} ${error.message ?? "is invalid"}`.slice(0, 300);
}
