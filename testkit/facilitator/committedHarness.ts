import type { Hex, LocalAccount } from "viem";
import { signEscrowPayment } from "../../services/buyer/src/sdk/signPayment.ts";
import { decodeBase64Json } from "../../services/protocol/base64.ts";
import type { Receipt } from "../../services/protocol/schemas/receipt.ts";
import { receiptSchema } from "../../services/protocol/schemas/receipt.ts";
import { debitsOnChain } from "../chain/debitsOnChain.ts";
import type { LocalChain } from "../chain/localChain.ts";
import { until } from "../until.ts";
import { getJson, postJson } from "./startFacilitator.ts";

/** The validated response every settle in these tests carries. */
export const RESPONSE = { status: 200, contentType: "application/json", body: { ok: true } };

/**
 * A buyer paying one resource through a facilitator at `url`: sign (escrow scheme), verify, settle; and read what
 * the facilitator and the chain say of it afterwards.
 */
export function committedHarness(p: { chain: LocalChain; buyer: LocalAccount; resourceId: Hex; cap: bigint }) {
  const sign = (options: { validForSeconds?: number; nonce?: Hex; resourceId?: Hex; maxAmount?: bigint } = {}) =>
    signEscrowPayment({
      account: p.buyer,
      escrow: p.chain.addresses.escrow,
      resourceId: options.resourceId ?? p.resourceId,
      maxAmount: options.maxAmount ?? p.cap,
      validBefore: BigInt(Math.floor(Date.now() / 1000) + (options.validForSeconds ?? 600)),
      ...(options.nonce ? { nonce: options.nonce } : {}),
    });
  type Payload = Awaited<ReturnType<typeof sign>>;

  const verify = (url: string, payload: Payload, resourceId = p.resourceId) =>
    postJson(`${url}/verify`, { paymentPayload: payload, resourceId, maxTimeoutSeconds: 30 });

  const settle = (url: string, payload: Payload, amount: bigint) =>
    postJson(`${url}/settle`, {
      idemKey: payload.authorization.nonce,
      resourceId: p.resourceId,
      amount: amount.toString(),
      response: RESPONSE,
    });

  /** Signs, verifies and settles one payment of `amount`; returns the payload and the settle answer. */
  async function pay(url: string, amount: bigint, options: Parameters<typeof sign>[0] = {}) {
    const payload = await sign(options);
    const verified = await verify(url, payload);
    if (verified.body.isValid !== true) throw new Error(`verify refused: ${JSON.stringify(verified.body)}`);
    return { payload, settled: await settle(url, payload, amount) };
  }

  /** The decoded receipt of a settle answer or a stored result. */
  const receiptOf = (body: { receipt: string }): Receipt => receiptSchema.parse(decodeBase64Json(body.receipt));

  /** `GET /results/:idemKey` once it says `settlement`, with its decoded receipt. */
  const resultWhen = (
    url: string,
    idemKey: Hex,
    settlement: "committed" | "confirmed" | "failed",
    timeoutMs?: number,
  ) =>
    until(
      async () => {
        const r = await getJson(`${url}/results/${idemKey}`);
        return r.status === 200 && r.body.settlement === settlement
          ? { ...r.body, decoded: receiptOf(r.body) }
          : undefined;
      },
      timeoutMs,
      `result ${settlement}`,
    );

  /** The escrow's debits of `nonce` (for this buyer), from genesis. */
  const debitsOf = (nonce: Hex) => debitsOnChain(p.chain, { buyer: p.buyer.address, nonce });

  const balance = () => p.chain.contracts.escrow.read.balanceOf([p.buyer.address]);

  return { sign, verify, settle, pay, receiptOf, resultWhen, debitsOf, balance };
}
