import type { Card } from "../../../protocol/schemas/card.ts";

/**
 * The request bodies of a card's example calls (`skills[].examples`, each a JSON string `{"request":…,"response":…}`),
 * in order, at most `limit`: what a buyer can post unpaid for the 402 quote before it knows the request schema.
 * Examples that are not JSON or whose request is not an object are left out.
 * @example const [first] = exampleRequests(card)
 */
export function exampleRequests(card: Card, limit = 3): Record<string, unknown>[] {
  const requests: Record<string, unknown>[] = [];
  for (const example of card.skills.flatMap((skill) => skill.examples ?? [])) {
    if (requests.length >= limit) break;
    try {
      const call = JSON.parse(example) as { request?: unknown };
      if (call.request && typeof call.request === "object" && !Array.isArray(call.request))
        requests.push(call.request as Record<string, unknown>);
    } catch {}
  }
  return requests;
}
