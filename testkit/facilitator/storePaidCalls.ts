import type { Hex } from "viem";
import type { Store } from "../../services/facilitator/store/createStore.ts";
import type { StoredResponse } from "../../services/facilitator/store/reservations.ts";
import { claimAndCommit, reserve } from "../../services/facilitator/store/reservations.ts";
import { recordSettlement } from "../../services/facilitator/store/results.ts";
import { RESULT_TTL_SECONDS } from "../../services/protocol/constants.ts";

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
  /** The stored settle answer: its receipt (base64) and body. */
  answer: { receipt: string; body: Record<string, unknown> };
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
 * Stores a group of paid calls as the facilitator does for one relayer batch, through its own statements: each
 * reserved (cap 1,000), committed (amount 1,000) and recorded mined in `block`. For store tests that need history.
 * @example await storePaidCalls(store, { resourceId, payments, now: 1, validBefore: 9_999_999_999, block: 3, response, answer })
 */
export async function storePaidCalls(store: Store, p: StorePaidCallsParameters): Promise<void> {
  const { resourceId, now } = p;
  const expiresAt = now + RESULT_TTL_SECONDS;
  await Promise.all(
    p.payments.map(({ buyer, idemKey }) =>
      reserve(
        store,
        {
          idemKey,
          scheme: "service-escrow",
          buyer,
          resourceId,
          cap: 1_000n,
          payload: sizedPayload(buyer, resourceId, idemKey, p.validBefore),
          validBefore: p.validBefore,
        },
        { now, available: 10n ** 12n, room: null, atBlock: BigInt(p.block) },
      ),
    ),
  );
  const terms = { resourceId, cap: 1_000n, amount: 1_000n, response: p.response, leaseUntil: now + 60, expiresAt };
  await Promise.all(
    p.payments.map(({ buyer, idemKey }) => claimAndCommit(store, { idemKey, buyer, ...terms, ...p.answer }, now)),
  );
  await Promise.all(
    p.payments.map(({ buyer, idemKey }) =>
      recordSettlement(
        store,
        { idemKey, buyer, resourceId, response: p.response, ...p.answer, settledAt: now, expiresAt },
        { transaction: `0x${p.block.toString(16).padStart(64, "0")}`, block: BigInt(p.block) },
      ),
    ),
  );
}
