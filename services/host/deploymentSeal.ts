import { createHmac } from "node:crypto";

/**
 * The seal of one stored deployment: HMAC-SHA256, under the host's seal key, of the schema, the slug and the record
 * exactly as the host wrote it. The key is never in the database, so whoever can write the host's schema, but not read
 * the host's configuration, cannot seal a record of their own making, nor move a sealed record to another slug or
 * schema.
 * @example const seal = deploymentSeal(key, 'host', 'echo', recordText)
 */
export function deploymentSeal(key: Buffer, schema: string, slug: string, record: string): string {
  return createHmac("sha256", key).update(`${schema}\0${slug}\0${record}`).digest("hex");
}
