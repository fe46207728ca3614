import type { Address, Hex, PublicClient } from "viem";
import { createPublicClient, http } from "viem";
import { abiOf } from "../../services/protocol/artifacts.ts";
import { BaseError } from "../../services/protocol/errors.ts";
import { findDebits } from "../../services/protocol/findDebits.ts";
import { sleep } from "../../testkit/sleep.ts";

export type AwaitDebitsParameters = {
  rpcUrl: string;
  escrow: Address;
  resourceId: Hex;
  /** The first block that may hold a debit of this load. */
  fromBlock: bigint;
  /** Every payment the load sent, by buyer and nonce (bitmap nonces repeat across buyers). */
  sent: readonly DebitKey[];
  /** The payments of the calls answered 200. */
  paid: readonly DebitKey[];
  /** How long the relayer may take to mine the last debit after the last answer. */
  timeoutMs: number;
};

/** What names one debit: its buyer and its nonce. */
export type DebitKey = { buyer: Address; nonce: Hex };

const keyOf = (k: DebitKey) => `${k.buyer.toLowerCase()}:${k.nonce.toLowerCase()}`;

/** What the chain holds for one load once its debits are all mined. */
export type DebitsOnChain = { debits: number; transactions: number; amount: bigint; drainedMs: number };

/** The chain disagrees with the answers: a 200 without exactly one debit, or a debit without a 200. */
export class DebitMismatchError extends BaseError {
  override name = "DebitMismatchError";
}

/** What {@link awaitDebits} throws when the chain disagrees with the answers. */
export type AwaitDebitsErrorType = DebitMismatchError;

const POLL_MS = 250;

/**
 * Polls the debits in the escrow's `BatchDebited` logs of `resourceId` from `fromBlock` until every payment answered 200 has its debit
 * (under committed settlement the answer comes before the debit is mined), then until two further polls a block
 * apart bring nothing new; throws `DebitMismatchError` unless there is exactly one debit per 200 and none for a payment
 * that got no 200 (or that this load never sent).
 * @example const onChain = await awaitDebits({ rpcUrl, escrow, resourceId, fromBlock, sent, paid, timeoutMs: 60_000 })
 */
export async function awaitDebits(p: AwaitDebitsParameters): Promise<DebitsOnChain> {
  const client = createPublicClient({ transport: http(p.rpcUrl) });
  const _abi = abiOf("PaymentEscrow");
  const started = performance.now();
  const deadline = Date.now() + p.timeoutMs;
  const paid = new Set(p.paid.map(keyOf));
  const sent = new Set(p.sent.map(keyOf));
  const read = async () =>
    (
      await findDebits(client as PublicClient, {
        escrow: p.escrow,
        resourceId: p.resourceId,
        fromBlock: p.fromBlock,
        toBlock: await client.getBlockNumber({ cacheTime: 0 }),
      })
    ).map((d) => ({ key: keyOf(d), amount: d.amount, transaction: d.transactionHash as Hex }));
  let events = await read();
  let drainedMs = 0;
  for (;;) {
    const seen = new Set(events.map((e) => e.key));
    const missing = [...paid].filter((n) => !seen.has(n));
    if (missing.length === 0) {
      drainedMs = performance.now() - started;
      break;
    }
    if (Date.now() > deadline)
      throw new DebitMismatchError(
        `${missing.length} of ${paid.size} calls answered 200 have no debit logged after ${p.timeoutMs / 1000} s (first: ${missing[0]})`,
      );
    await sleep(POLL_MS);
    events = await read();
  }
  // Debits for payments that got no 200 may still be on their way: wait until two polls a block apart add nothing.
  for (let quiet = 0; quiet < 2; ) {
    await sleep(600);
    const again = await read();
    quiet = again.length === events.length ? quiet + 1 : 0;
    events = again;
  }
  const count = new Map<string, number>();
  for (const e of events) count.set(e.key, (count.get(e.key) ?? 0) + 1);
  const twice = [...count].filter(([, n]) => n > 1).map(([nonce]) => nonce);
  const unpaid = [...count.keys()].filter((n) => !paid.has(n));
  const foreign = unpaid.filter((n) => !sent.has(n));
  if (twice.length || unpaid.length)
    throw new DebitMismatchError(
      [
        twice.length ? `${twice.length} payments debited more than once (first: ${twice[0]})` : "",
        unpaid.length
          ? `${unpaid.length} debits without a 200 (${foreign.length} of them for payments this load never sent; first: ${unpaid[0]})`
          : "",
      ]
        .filter(Boolean)
        .join("; "),
    );
  return {
    debits: events.length,
    transactions: new Set(events.map((e) => e.transaction)).size,
    amount: events.reduce((sum, e) => sum + e.amount, 0n),
    drainedMs,
  };
}
