import type { Address, Hex, LocalAccount } from "viem";
import { signEscrowPayment } from "../../services/buyer/src/sdk/signPayment.ts";
import { encodeBase64Json } from "../../services/protocol/base64.ts";

/** Pre-signed payments: the `X-PAYMENT` header of each, and its nonce (the idemKey its debit carries on chain). */
export type BenchPayments = { headers: string[]; nonces: Hex[] };

export type SignBenchPaymentsParameters = {
  buyers: readonly LocalAccount[];
  escrow: Address;
  resourceId: Hex;
  /** The resource's cap: what each payment authorizes at most. */
  cap: bigint;
  count: number;
  /** Where in the buyer rotation to start, so that consecutive batches spread over every buyer. */
  offset?: number;
};

/**
 * Signs `count` unique `service-escrow` payments, buyer after buyer, before a load starts (signing is the buyer's
 * work, not the system's).
 * @example const { headers, nonces } = await signBenchPayments({ buyers, escrow, resourceId, cap: 50_000n, count: 2000 })
 */
export async function signBenchPayments(p: SignBenchPaymentsParameters): Promise<BenchPayments> {
  const validBefore = BigInt(Math.floor(Date.now() / 1000) + 3_600);
  const headers: string[] = [];
  const nonces: Hex[] = [];
  for (let i = 0; i < p.count; i++) {
    const account = p.buyers[((p.offset ?? 0) + i) % p.buyers.length];
    if (!account) throw new Error("no buyers to sign with");
    const payload = await signEscrowPayment({
      account,
      escrow: p.escrow,
      resourceId: p.resourceId,
      maxAmount: p.cap,
      validBefore,
    });
    headers.push(encodeBase64Json(payload));
    nonces.push(payload.authorization.nonce);
  }
  return { headers, nonces };
}
