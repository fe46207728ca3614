import type { Address, Hex, LocalAccount } from "viem";
import { signEscrowPayment } from "../../services/buyer/src/sdk/signPayment.ts";
import { encodeBase64Json } from "../../services/protocol/base64.ts";
import { bitmapNonce } from "../../services/protocol/bitmapNonce.ts";
import type { DebitKey } from "./awaitDebits.ts";

/**
 * Pre-signed payments: the `X-PAYMENT` header of each, and its buyer and nonce (what its debit carries on chain; a
 * bitmap nonce repeats across buyers).
 */
export type BenchPayments = { headers: string[]; keys: DebitKey[] };

export type SignBenchPaymentsParameters = {
  buyers: readonly LocalAccount[];
  escrow: Address;
  resourceId: Hex;
  /** The resource's cap: what each payment authorizes at most. */
  cap: bigint;
  count: number;
  /** Where in the buyer rotation to start, so that consecutive batches spread over every buyer. */
  offset?: number;
  /**
   * Each buyer's first bitmap nonce index in this batch (0 unless given); a buyer's payments take consecutive
   * indexes from it, so that batches signed for the same buyers must start past each other's last index.
   */
  firstNonceIndex?: number;
};

/**
 * Signs `count` unique `service-escrow` payments, buyer after buyer, before a load starts (signing is the buyer's
 * work, not the system's). Each carries the next bitmap nonce of its buyer, as the buyer SDK allocates them: verify
 * prices a random nonce's slot into the floor, which the echo sample's price does not pay.
 * @example const { headers, keys } = await signBenchPayments({ buyers, escrow, resourceId, cap: 50_000n, count: 2000 })
 */
export async function signBenchPayments(p: SignBenchPaymentsParameters): Promise<BenchPayments> {
  const validBefore = BigInt(Math.floor(Date.now() / 1000) + 3_600);
  const headers: string[] = [];
  const keys: DebitKey[] = [];
  const next = new Map<LocalAccount, number>();
  for (let i = 0; i < p.count; i++) {
    const account = p.buyers[((p.offset ?? 0) + i) % p.buyers.length];
    if (!account) throw new Error("no buyers to sign with");
    const index = next.get(account) ?? p.firstNonceIndex ?? 0;
    next.set(account, index + 1);
    const payload = await signEscrowPayment({
      account,
      escrow: p.escrow,
      resourceId: p.resourceId,
      maxAmount: p.cap,
      validBefore,
      nonce: bitmapNonce(index),
    });
    headers.push(encodeBase64Json(payload));
    keys.push({ buyer: account.address, nonce: payload.authorization.nonce });
  }
  return { headers, keys };
}
