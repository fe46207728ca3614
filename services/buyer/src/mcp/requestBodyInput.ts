import { z } from "zod";
import type { BuyerConfig } from "./loadBuyerConfig.ts";

/** Where an agent finds a resource's request schema when the server was not given it. */
const WHERE_SCHEMA =
  "The JSON request body, an object. Its schema is the request schema of the resource: the 402 quote's extensions.bazaar.schema.properties.input.properties.body (quote answers it), with an example request in extensions.bazaar.info.input.body and in the card's skills[].examples (get_card).";

/**
 * The `body` input of `call_resource`: with one resource in scope and its request schema given
 * (`SERVICE_REQUEST_SCHEMA`, which a generated per-endpoint plugin passes), that schema, so a client shows and sends
 * the resource's own fields; otherwise any JSON object, described with where its schema is found. Typed as an object
 * either way, so a client never sends the body as a string. A schema zod cannot take falls back to any object (the
 * gate checks the body against the real schema all the same).
 * @example const body = requestBodyInput(config)
 */
export function requestBodyInput(config: BuyerConfig): z.ZodType {
  const anyObject = z.record(z.string(), z.unknown()).optional().describe(WHERE_SCHEMA);
  if (!config.requestSchema || config.scope?.length !== 1) return anyObject;
  try {
    return z
      .fromJSONSchema(config.requestSchema as never)
      .optional()
      .describe(`The JSON request body of resource ${config.scope[0]}, under its request schema.`);
  } catch {
    return anyObject;
  }
}
