import type { Card } from "../../../protocol/schemas/card.ts";
import { quoteSchema } from "../../../protocol/schemas/quote.ts";
import { fetchJson } from "../sdk/fetchJson.ts";
import { sanitiseCreatorText } from "./sanitiseCreatorText.ts";

/** How long a schema's annotation (`title`, `description`, `$comment`) may be once sanitised. */
const ANNOTATION_MAX = 200;

/** The request of the card's first example call (`{"request":…,"response":…}`), which the gate accepts. */
function exampleRequest(card: Card): Record<string, unknown> | undefined {
  for (const example of card.skills.flatMap((skill) => skill.examples ?? [])) {
    try {
      const call = JSON.parse(example) as { request?: unknown };
      if (call.request && typeof call.request === "object" && !Array.isArray(call.request))
        return call.request as Record<string, unknown>;
    } catch {}
  }
  return undefined;
}

/** A copy of a schema with every string `title`, `description` and `$comment` sanitised as a creator's words. */
function sanitiseAnnotations(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sanitiseAnnotations);
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, inner]) => [
      key,
      ["title", "description", "$comment"].includes(key) && typeof inner === "string"
        ? sanitiseCreatorText(inner, ANNOTATION_MAX)
        : sanitiseAnnotations(inner),
    ]),
  );
}

/**
 * The request schema an endpoint publishes in its 402 quote (`extensions.bazaar`, the x402 Bazaar discovery
 * extension): the card's first example request is sent unpaid, and the quote's
 * `schema.properties.input.properties.body` is taken, its annotations sanitised. Undefined when the card has no
 * example call, the endpoint does not answer a valid quote, the quote has no schema, or the schema holds `${` (which
 * Claude Code would substitute in a `.mcp.json` value). Nothing is paid or signed.
 * @example const schema = await readRequestSchema(card)
 */
export async function readRequestSchema(card: Card): Promise<Record<string, unknown> | undefined> {
  const request = exampleRequest(card);
  if (!request) return undefined;
  try {
    const { response, json } = await fetchJson(
      card.url,
      {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(request),
        redirect: "manual",
      },
      "resource",
    );
    if (response.status !== 402) return undefined;
    const quote = quoteSchema.safeParse(json);
    const body = quote.success ? quote.data.extensions?.bazaar?.schema.properties.input.properties.body : undefined;
    if (!body || typeof body !== "object") return undefined;
    const schema = sanitiseAnnotations(body) as Record<string, unknown>;
    return JSON.stringify(schema).includes("${") ? undefined : schema;
  } catch {
    return undefined;
  }
}
