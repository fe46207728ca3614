import type { Address, Hex } from "viem";
import type { Store } from "../../services/facilitator/store/createStore.ts";
import type { StoredResponse } from "../../services/facilitator/store/reservations.ts";
import { claimAndCommit, reserve } from "../../services/facilitator/store/reservations.ts";
import { recordSettlement } from "../../services/facilitator/store/results.ts";
import { encodeBase64Json } from "../../services/protocol/base64.ts";
import { NETWORK, RESULT_TTL_SECONDS, SCHEME_ESCROW } from "../../services/protocol/constants.ts";
import type { Receipt } from "../../services/protocol/schemas/receipt.ts";
import { settlementIdOf } from "../../services/protocol/settlementId.ts";

export type StorePaidCallsParameters = {
  resourceId: Hex;
  /** The calls, one group: each a buyer and the nonce it signed. */
  payments: readonly { buyer: Hex; idemKey: Hex }[];
  /** When they are reserved, committed and mined; their authorizations stay valid until `validBefore`. */
  now: number;
  validBefore: number;
  /** The block their debits are mined in (the chain read at verify is at `block` too). */
  block: number;
  response: StoredResponse;
};

/** A signed escrow payload of a real one's size, so that rows, and the pages they fill, are as big as in production. */
export function sizedPayload(buyer: Hex, resourceId: Hex, nonce: Hex, validBefore: number) {
  return {
    scheme: "service-escrow",
    authorization: { buyer, resourceId, maxAmount: "50000", validAfter: "0", validBefore: String(validBefore), nonce },
    signature: `0x${"5a".repeat(65)}` as Hex,
  };
}

/**
 * An escrow reservation as verify makes it, of a real payment's size (sizedPayload), for `reserve`.
 * @example await reserve(store, escrowReservation({ buyer, resourceId, idemKey, cap: 1_000n, validBefore }), against)
 */
export function escrowReservation(p: { buyer: Hex; resourceId: Hex; idemKey: Hex; cap: bigint; validBefore: number }) {
  return {
    idemKey: p.idemKey,
    scheme: "service-escrow" as const,
    buyer: p.buyer,
    resourceId: p.resourceId,
    cap: p.cap,
    payload: sizedPayload(p.buyer, p.resourceId, p.idemKey, p.validBefore),
    validBefore: p.validBefore,
  };
}

/**
 * The two receipts of a committed escrow call of 1,000 at a 5% fee, as the facilitator makes them: commitSettlement's,
 * then finalize's once its debit is mined in `transaction`.
 * @example const { committed, confirmed } = paidCallReceipts({ buyer, resourceId, idemKey, now, transaction })
 */
export function paidCallReceipts(p: { buyer: Hex; resourceId: Hex; idemKey: Hex; now: number; transaction: Hex }): {
  committed: Receipt;
  confirmed: Receipt;
} {
  const settlementId = settlementIdOf({ escrow: `0x${"e5".repeat(20)}`, buyer: p.buyer as Address, nonce: p.idemKey });
  const fields = {
    scheme: SCHEME_ESCROW,
    network: NETWORK,
    payer: p.buyer,
    payTo: p.resourceId,
    idemKey: p.idemKey,
    amount: "1000",
    creatorAmount: "950",
    treasuryAmount: "50",
    settledAt: new Date(p.now * 1000).toISOString(),
  } as const;
  return {
    committed: { success: true, status: "committed", settlementId, ...fields },
    confirmed: { success: true, status: "confirmed", settlementId, ...fields, transaction: p.transaction },
  };
}

/**
 * Stores a group of paid calls as the facilitator does for one relayer batch, through its own statements: each
 * reserved (cap 1,000), committed (amount 1,000) and recorded mined in `block`, with the receipts the facilitator
 * makes (paidCallReceipts). For store tests that need history, and the store's benchmark.
 * @example await storePaidCalls(store, { resourceId, payments, now: 1, validBefore: 9_999_999_999, block: 3, response })
 */
export async function storePaidCalls(store: Store, p: StorePaidCallsParameters): Promise<void> {
  const { resourceId, now } = p;
  const expiresAt = now + RESULT_TTL_SECONDS;
  const transaction: Hex = `0x${p.block.toString(16).padStart(64, "0")}`;
  const calls = p.payments.map(({ buyer, idemKey }) => {
    const receipts = paidCallReceipts({ buyer, resourceId, idemKey, now, transaction });
    return {
      buyer,
      idemKey,
      committed: encodeBase64Json(receipts.committed),
      confirmed: encodeBase64Json(receipts.confirmed),
    };
  });
  await Promise.all(
    calls.map(({ buyer, idemKey }) =>
      reserve(store, escrowReservation({ buyer, resourceId, idemKey, cap: 1_000n, validBefore: p.validBefore }), {
        now,
        available: 10n ** 12n,
        room: null,
        atBlock: BigInt(p.block),
      }),
    ),
  );
  const terms = { resourceId, cap: 1_000n, amount: 1_000n, response: p.response, leaseUntil: now + 60, expiresAt };
  await Promise.all(
    calls.map(({ buyer, idemKey, committed }) =>
      claimAndCommit(store, { idemKey, buyer, ...terms, receipt: committed }, now),
    ),
  );
  await Promise.all(
    calls.map(({ buyer, idemKey, confirmed }) =>
      recordSettlement(
        store,
        { idemKey, buyer, resourceId, receipt: confirmed, settledAt: now, expiresAt },
        { transaction, block: BigInt(p.block) },
        false,
      ),
    ),
  );
}
