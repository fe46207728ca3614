import type { Hex } from "viem";
import { z } from "zod";
import { decodeBase64Json } from "../../../protocol/base64.ts";
import type { Receipt } from "../../../protocol/schemas/receipt.ts";
import { receiptSchema } from "../../../protocol/schemas/receipt.ts";
import { BuyerError } from "./buyerError.ts";
import { errorOf, fetchJson } from "./fetchJson.ts";
import { assertReceiptMatches } from "./payForCall.ts";

const storedResultSchema = z.object({
  idemKey: z.string(),
  resourceId: z.string(),
  response: z.object({ status: z.number(), contentType: z.string().optional(), body: z.unknown() }),
  receipt: z.string(),
  settledAt: z.string(),
  expiresAt: z.string(),
});

export type RecoverResultReturnType = {
  resourceId: Hex;
  status: number;
  body: unknown;
  receipt: Receipt;
  settledAt: string;
  expiresAt: string;
};

/**
 * Fetches the stored result of a settled call after its answer was lost (`GET /results/:idemKey?payer=` at the
 * facilitator, kept 24 h) and checks its receipt against what was signed: this payer, this idemKey.
 * @example const { body, receipt } = await recoverResult({ facilitatorUrl, idemKey, payer: account.address })
 */
export async function recoverResult(p: {
  facilitatorUrl: string;
  idemKey: Hex;
  payer: string;
  /** The most the signed payment allowed, when known (the receipt may not exceed it). */
  cap?: bigint;
}): Promise<RecoverResultReturnType> {
  const base = p.facilitatorUrl.endsWith("/") ? p.facilitatorUrl : `${p.facilitatorUrl}/`;
  // The payer names whose result it is: a nonce may be held by more than one buyer (docs/protocol.md).
  const url = new URL(`results/${p.idemKey}`, base);
  url.searchParams.set("payer", p.payer);
  const { response, json } = await fetchJson(url.toString(), {}, "facilitator", { allowPrivate: true });
  if (response.status === 404)
    throw new BuyerError("not_found", `no result for ${p.idemKey}: never settled, or older than 24 h (nothing paid)`);
  if (response.status === 202) {
    const again = `ask again in ${response.headers.get("retry-after") ?? "2"} s`;
    if ((json as { settlement?: unknown } | undefined)?.settlement === "reserved")
      throw new BuyerError(
        "in_progress",
        `the call of ${p.idemKey} is still being served; nothing is settled (${again})`,
      );
    throw new BuyerError(
      "settlement_pending",
      `the debit of ${p.idemKey} is not confirmed yet; its result is kept once it is (${again})`,
    );
  }
  if (response.status !== 200) {
    const error = errorOf(json, response.status);
    throw new BuyerError(error.code, `GET /results/${p.idemKey}: ${error.message}`);
  }
  const stored = storedResultSchema.safeParse(json);
  if (!stored.success) throw new BuyerError("invalid_result", "the stored result fails its schema");
  let receipt: Receipt;
  try {
    receipt = receiptSchema.parse(decodeBase64Json(stored.data.receipt));
  } catch {
    throw new BuyerError("bad_receipt", "the stored result carries no valid receipt");
  }
  assertReceiptMatches(receipt, {
    resourceId: stored.data.resourceId as Hex,
    idemKey: p.idemKey,
    payer: p.payer,
    cap: p.cap ?? BigInt(receipt.amount),
  });
  return {
    resourceId: stored.data.resourceId as Hex,
    status: stored.data.response.status,
    body: stored.data.response.body,
    receipt,
    settledAt: stored.data.settledAt,
    expiresAt: stored.data.expiresAt,
  };
}
