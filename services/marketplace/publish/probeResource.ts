import type { Address, Hex } from "viem";
import { z } from "zod";
import type { FetchBoundedInit } from "../../http/fetchBounded.ts";
import { fetchBounded } from "../../http/fetchBounded.ts";
import { CHAIN_ID, PLACEHOLDER_AGENT_ID } from "../../protocol/constants.ts";
import { NEUTRAL_LIVE_FIELDS, withLiveFields } from "../../protocol/liveCardFields.ts";
import type { CardTemplate } from "../../protocol/schemas/card.ts";
import { cardSchema, cardTemplateSchema } from "../../protocol/schemas/card.ts";
import type { Quote } from "../../protocol/schemas/quote.ts";
import { quoteSchema } from "../../protocol/schemas/quote.ts";

export type ProbeResourceParameters = {
  resourceId: Hex;
  /** The resource's base URL ({resource_url}); the card is at /.well-known/agent-card.json, the call at /call. */
  resourceUrl: string;
  /** Our escrow and stablecoin: a card or quote naming others is refused. */
  escrow: Address;
  token: Address;
  /** A body the resource accepts, sent to `POST /call` without payment to obtain the quote. */
  sampleRequest: unknown;
  /** The card the resource must serve (compared with `url`, `x402.payTo` and `identity.agentId` set aside). */
  expectedCard?: unknown;
  /** Whether the served card may still hold `{{AGENT_ID}}` (before the identity is minted). */
  allowAgentPlaceholder: boolean;
  timeoutMs: number;
  /** Largest answer body read; a larger one fails the check. */
  maxBodyBytes: number;
  /** Whether the resource may resolve to loopback or private addresses (the embedded stack); refused otherwise. */
  allowPrivate: boolean;
};

/** What a probe found: the served card and the 402 quote, or the first check that failed. */
export type ProbeResult =
  | { ok: true; card: CardTemplate; quote: Quote }
  | { ok: false; check: "health" | "card" | "quote"; reason: string };

const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

/** A JSON text with object keys sorted, so that two cards compare by content. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(
          Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
        )
      : v,
  );
}

/** The card without what deploy fills (url, payTo, agentId) and what is live (health, bond): what the creator fixed. */
function withoutDeployFields(card: unknown): unknown {
  const c = withLiveFields(card, NEUTRAL_LIVE_FIELDS) as { x402?: object; identity?: object };
  return { ...c, url: "", x402: { ...c.x402, payTo: "" }, identity: { ...c.identity, agentId: "" } };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * Checks a deployed resource the way a buyer would meet it: `GET /health` answers 200; the card at
 * `/.well-known/agent-card.json` validates strictly, calls `{resource_url}/call`, pays to the resource id through our
 * escrow in our stablecoin, and matches the expected card; `POST /call` without payment answers a valid 402 quote
 * whose payTo is the resource id, whose cap equals the card's `pricing.max`, and whose escrow, asset and price terms
 * are the card's. Any mismatch refuses.
 * @example const probe = await probeResource({ resourceId, resourceUrl, escrow, token, sampleRequest: {}, allowAgentPlaceholder: true, timeoutMs: 5000 })
 */
export async function probeResource(p: ProbeResourceParameters): Promise<ProbeResult> {
  const base = p.resourceUrl.replace(/\/+$/, "");
  const limits = { timeoutMs: p.timeoutMs, maxBytes: p.maxBodyBytes, allowPrivate: p.allowPrivate };
  const fetchWithin = (url: string, init: FetchBoundedInit) => fetchBounded(url, init, limits);
  const health = await fetchWithin(`${base}/health`, {});
  if ("error" in health) return { ok: false, check: "health", reason: `resource unreachable: ${health.error}` };
  if (health.status !== 200) return { ok: false, check: "health", reason: `GET /health answered ${health.status}` };

  const served = await fetchWithin(`${base}/.well-known/agent-card.json`, {});
  if ("error" in served) return { ok: false, check: "card", reason: `card unreachable: ${served.error}` };
  if (served.status !== 200)
    return { ok: false, check: "card", reason: `GET /.well-known/agent-card.json answered ${served.status}` };
  const schema = p.allowAgentPlaceholder ? cardTemplateSchema : cardSchema;
  const parsed = schema.safeParse(parseJson(served.text));
  if (!parsed.success)
    return { ok: false, check: "card", reason: `served card is invalid: ${z.prettifyError(parsed.error)}` };
  const card = parsed.data;
  const cardChecks: [boolean, string][] = [
    [card.url === `${base}/call`, `card url ${card.url} is not ${base}/call`],
    [
      same(card.x402.payTo, p.resourceId),
      `card x402.payTo ${card.x402.payTo} differs from the resource id ${p.resourceId}`,
    ],
    [same(card.x402.escrow, p.escrow), `card x402.escrow ${card.x402.escrow} is not our escrow ${p.escrow}`],
    [same(card.x402.asset, p.token), `card x402.asset ${card.x402.asset} is not our stablecoin ${p.token}`],
    [card.identity.chainId === CHAIN_ID, `card identity.chainId ${card.identity.chainId} is not ${CHAIN_ID}`],
    [
      p.allowAgentPlaceholder || card.identity.agentId !== PLACEHOLDER_AGENT_ID,
      "card identity.agentId is still a placeholder",
    ],
    [
      p.expectedCard === undefined ||
        canonicalJson(withoutDeployFields(card)) === canonicalJson(withoutDeployFields(p.expectedCard)),
      "the served card differs from the card submitted for listing",
    ],
  ];
  const cardFailure = cardChecks.find(([passed]) => !passed);
  if (cardFailure) return { ok: false, check: "card", reason: cardFailure[1] };

  const call = await fetchWithin(`${base}/call`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(p.sampleRequest ?? {}),
  });
  if ("error" in call) return { ok: false, check: "quote", reason: `POST /call unreachable: ${call.error}` };
  if (call.status !== 402)
    return { ok: false, check: "quote", reason: `POST /call without payment answered ${call.status}, not 402` };
  const quoted = quoteSchema.safeParse(parseJson(call.text));
  if (!quoted.success)
    return { ok: false, check: "quote", reason: `the 402 quote is invalid: ${z.prettifyError(quoted.error)}` };
  const quote = quoted.data;
  const [escrowEntry] = quote.accepts;
  const quoteChecks: [boolean, string][] = [
    [
      same(escrowEntry.payTo, p.resourceId),
      `quote payTo ${escrowEntry.payTo} differs from the resource id ${p.resourceId}`,
    ],
    [
      escrowEntry.maxAmountRequired === card.x402.pricing.max,
      `quote cap ${escrowEntry.maxAmountRequired} differs from the card's max ${card.x402.pricing.max}`,
    ],
    [same(escrowEntry.escrow, p.escrow), `quote escrow ${escrowEntry.escrow} is not our escrow ${p.escrow}`],
    [same(escrowEntry.asset, p.token), `quote asset ${escrowEntry.asset} is not our stablecoin ${p.token}`],
    [
      escrowEntry.pricing.base === card.x402.pricing.base,
      `quote base ${escrowEntry.pricing.base} differs from the card's ${card.x402.pricing.base}`,
    ],
    [
      escrowEntry.pricing.perKB === card.x402.pricing.perKB,
      `quote perKB ${escrowEntry.pricing.perKB} differs from the card's ${card.x402.pricing.perKB}`,
    ],
  ];
  const quoteFailure = quoteChecks.find(([passed]) => !passed);
  if (quoteFailure) return { ok: false, check: "quote", reason: quoteFailure[1] };
  return { ok: true, card, quote };
}
