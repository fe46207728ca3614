import type { Address, Hex } from "viem";
import type { Store } from "../services/facilitator/store/createStore.ts";
import { advanceBook, resetBook } from "../services/facilitator/store/escrowBook.ts";
import type { StoredResponse } from "../services/facilitator/store/reservations.ts";
import { claimAndCommit, reserve } from "../services/facilitator/store/reservations.ts";
import { recordSettlement } from "../services/facilitator/store/results.ts";
import { encodeBase64Json } from "../services/protocol/base64.ts";
import { RESULT_TTL_SECONDS } from "../services/protocol/constants.ts";
import { escrowReservation, paidCallReceipts } from "../testkit/facilitator/storePaidCalls.ts";

/** The store statements of a committed paid call, each with its CPU per call. */
export type StoreCpu = { reserve: number; commit: number; mined: number; book: number; total: number };

const ESCROW: Address = `0x${"e5".repeat(20)}`;
/** The hash of a page's last block and of the start block: the store keeps them, the follower checks them. */
const HASH: Hex = `0x${"ab".repeat(32)}`;
const CAP = 20_000n;
const AMOUNT = 10_200n;

/**
 * CPU per paid call of the facilitator's store statements on an in-process store (PGlite: its CPU is this process's),
 * in the order a committed call takes them: verify's reservation against the escrow book (`reserve`), settle's
 * `claimAndCommit`, the relayer's record of the mined batch (`recordSettlement`), and the book's advance over the
 * batch's block (`advanceBook`: the buyers' balances and the nonces' tombstones). Calls go over `buyers` buyers in
 * turn, reserved and committed `group` at once (as coalesce groups concurrent requests), mined `block` to a block.
 * @example const cpu = await measureStoreCpu(store, { calls: 4000, group: 16, block: 128, buyers: 64, response })
 */
export async function measureStoreCpu(
  store: Store,
  p: { calls: number; group: number; block: number; buyers: number; response: StoredResponse },
): Promise<StoreCpu> {
  const hex = (n: number, bytes = 32): Hex => `0x${n.toString(16).padStart(bytes * 2, "0")}`;
  const resourceId = hex(0x5e);
  const buyers = Array.from({ length: p.buyers }, (_, i) => hex(0xb0000 + i, 20) as Address);
  const now = Math.floor(Date.now() / 1000);
  await resetBook(store, ESCROW, 1n, HASH);
  const deposits = buyers.map((buyer) => ({ kind: "deposited" as const, buyer, block: 1n, balance: 10n ** 15n }));
  await advanceBook(store, { toHash: HASH, from: 1n, to: 1n, events: deposits, currentAt: now });
  const cpu = { reserve: 0, commit: 0, mined: 0, book: 0 };
  const timed = async (part: keyof typeof cpu, work: () => Promise<unknown>) => {
    const start = process.cpuUsage();
    await work();
    const used = process.cpuUsage(start);
    cpu[part] += (used.user + used.system) / 1000;
  };
  const expiresAt = now + RESULT_TTL_SECONDS;
  for (let first = 0, block = 2n; first < p.calls; first += p.block, block++) {
    const transaction = hex(Number(block));
    const calls = Array.from({ length: Math.min(p.block, p.calls - first) }, (_, i) => {
      const buyer = buyers[(first + i) % buyers.length] as Address;
      const idemKey = hex(first + i + 1);
      return { buyer, idemKey, receipts: paidCallReceipts({ buyer, resourceId, idemKey, now, transaction }) };
    });
    for (let at = 0; at < calls.length; at += p.group) {
      const group = calls.slice(at, at + p.group);
      await timed("reserve", async () => {
        const outcomes = await Promise.all(
          group.map(({ buyer, idemKey }) =>
            reserve(store, escrowReservation({ buyer, resourceId, idemKey, cap: CAP, validBefore: now + 300 }), {
              now,
              book: { maxLagSeconds: 60 },
            }),
          ),
        );
        const refused = outcomes.find((o) => o.outcome !== "reserved");
        if (refused) throw new Error(`a bench reservation was refused: ${refused.outcome}`);
      });
      await timed("commit", () =>
        Promise.all(
          group.map(({ buyer, idemKey, receipts }) =>
            claimAndCommit(
              store,
              {
                idemKey,
                buyer,
                resourceId,
                cap: CAP,
                amount: AMOUNT,
                response: p.response,
                leaseUntil: now + 60,
                receipt: encodeBase64Json(receipts.committed),
                expiresAt,
              },
              now,
            ),
          ),
        ),
      );
    }
    await timed("mined", () =>
      Promise.all(
        calls.map(({ buyer, idemKey, receipts }) =>
          recordSettlement(
            store,
            { idemKey, buyer, resourceId, receipt: encodeBase64Json(receipts.confirmed), settledAt: now, expiresAt },
            { transaction, block },
            false,
          ),
        ),
      ),
    );
    const debits = calls.map(({ buyer, idemKey }) => ({
      kind: "debited" as const,
      buyer,
      block,
      nonce: idemKey,
      amount: AMOUNT,
      fromBalance: true,
      timestamp: BigInt(now),
    }));
    await timed("book", () =>
      advanceBook(store, { toHash: HASH, from: block, to: block, events: debits, currentAt: now }),
    );
  }
  const per = (ms: number) => ms / p.calls;
  return {
    reserve: per(cpu.reserve),
    commit: per(cpu.commit),
    mined: per(cpu.mined),
    book: per(cpu.book),
    total: per(cpu.reserve + cpu.commit + cpu.mined + cpu.book),
  };
}
