import { z } from "zod";
import { HttpError } from "./httpError.ts";

/**
 * Parses `value` with `schema`, or throws a 400 `invalid_request` HttpError that names every problem.
 * @example const query = parseWith(resourcesQuerySchema, koa.query)
 */
export function parseWith<T extends z.ZodType>(schema: T, value: unknown): z.output<T> {
  const result = schema.safeParse(value);
  if (!result.success) throw new HttpError(400, "invalid_request", z.prettifyError(result.error));
  return result.data;
}
