import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { isChainUnavailable } from "../../../protocol/chain.ts";
import { BuyerError } from "../sdk/buyerError.ts";
import { PaymentUnknownError } from "../sdk/paymentUnknownError.ts";
import { SpendRefusedError } from "./spendPolicy.ts";

/** Said in every answer of the demo. */
export const DEMO_NOTICE =
  "DEMO: an in-process chain, facilitator and sample resource with a throwaway funded buyer; no real money moves. Configure BUYER_PRIVATE_KEY and RPC_URL for the live network.";

type Mode = "demo" | "live";

/**
 * A successful tool answer: the structured content (validated against the tool's output schema) and its JSON text.
 * @example return toolAnswer("live", { resources })
 */
export function toolAnswer(mode: Mode, content: Record<string, unknown>): CallToolResult {
  const structured = { mode, ...(mode === "demo" ? { notice: DEMO_NOTICE } : {}), ...content };
  return { structuredContent: structured, content: [{ type: "text", text: JSON.stringify(structured, null, 2) }] };
}

/**
 * A tool error as data (`{ error: { code, message } }`, no stack): expected failures, unreachable services and bugs
 * alike never crash the server. A spend refusal adds its rule and what is left; `payment_unknown` adds the idemKey,
 * the validBefore until which it may still be debited, and `next: "recover_result"`.
 * @example return toolError("live", error)
 */
export function toolError(mode: Mode, error: unknown): CallToolResult {
  const extra =
    error instanceof SpendRefusedError
      ? { rule: error.refusal.rule, limit: error.refusal.limit, remaining: error.refusal.remaining }
      : error instanceof PaymentUnknownError
        ? {
            idemKey: error.idemKey,
            validBefore: new Date(Number(error.validBefore) * 1000).toISOString(),
            next: "recover_result",
          }
        : {};
  let code = "internal_error";
  let message = error instanceof Error ? (error.message.split("\n")[0] ?? "") : String(error);
  if (error instanceof BuyerError) code = error.code;
  else if (isChainUnavailable(error)) {
    code = "rpc_unavailable";
    message = `the chain (RPC_URL) cannot be reached: ${message}`;
  }
  const body = { mode, ...(mode === "demo" ? { notice: DEMO_NOTICE } : {}), error: { ...extra, code, message } };
  return { isError: true, content: [{ type: "text", text: JSON.stringify(body, null, 2) }] };
}
