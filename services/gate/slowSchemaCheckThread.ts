import { parentPort } from "node:worker_threads";
import type { ValidateFunction } from "ajv";
import { compileSchema } from "./compileSchema.ts";
import { checkWith } from "./schemaCheck.ts";

/**
 * The worker thread of slowSchemaChecks.ts: checks one value at a time against a schema (sent as its JSON text,
 * compiled once and kept), saying `{ id }` when it begins the check itself (its deadline starts there) and answering
 * `{ id, outcome }`, in order.
 */
const compiled = new Map<string, ValidateFunction>();
const MAX_COMPILED = 1_000;

parentPort?.on("message", ({ id, key, value }: { id: number; key: string; value: unknown }) => {
  let validate = compiled.get(key);
  if (!validate) {
    if (compiled.size >= MAX_COMPILED) compiled.clear();
    validate = compileSchema(JSON.parse(key), "schema");
    compiled.set(key, validate);
  }
  parentPort?.postMessage({ id });
  parentPort?.postMessage({ id, outcome: checkWith(validate, value) });
});
