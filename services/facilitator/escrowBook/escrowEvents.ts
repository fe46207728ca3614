import type { Address, Hex, Log, PublicClient } from "viem";
import { parseAbi } from "viem";
import { BATCH_DEBITED_TOPIC, parseDebits } from "../../protocol/parseDebits.ts";

/** The escrow events that change what a buyer may reserve (IPaymentEscrow.sol), and the token's `Transfer`. */
const buyerEvents = parseAbi([
  "event Deposited(address indexed buyer, address indexed from, uint256 amount, uint256 balance)",
  "event WithdrawalRequested(address indexed buyer, uint256 amount, uint256 unlocksAt)",
  "event Withdrawn(address indexed buyer, uint256 amount, uint256 balance)",
  "event SpendLimitSet(address indexed buyer, uint256 limit, uint256 period)",
  "event SpendLimitChangeRequested(address indexed buyer, uint256 limit, uint256 period, uint256 effectiveAt)",
  "event BatchDebited(bytes32 indexed resourceId, uint16 feeBps, bytes debits)",
]);
const transferEvent = parseAbi(["event Transfer(address indexed from, address indexed to, uint256 value)"])[0];

/** One change to a buyer's escrow state, in chain order; `block` is the block it was mined in. */
export type EscrowEvent = { buyer: Address; block: bigint } & (
  | { kind: "deposited" | "withdrawn"; balance: bigint }
  | { kind: "withdrawalRequested"; amount: bigint }
  | { kind: "spendLimitSet"; limit: bigint; period: bigint }
  | { kind: "spendLimitRequested"; limit: bigint; period: bigint; effectiveAt: bigint }
  /**
   * A debit of the buyer's escrow balance at the block's time `timestamp`; `fromBalance` is false for an `exact`
   * settlement (`settleExact`), which spends the escrow nonce but pays from the buyer's token balance.
   */
  | { kind: "debited"; nonce: Hex; amount: bigint; fromBalance: boolean; timestamp: bigint }
);

export type ReadEscrowEventsParameters = { escrow: Address; token: Address; fromBlock: bigint; toBlock: bigint };

/**
 * Every buyer-state change the escrow logged in a block range, in chain order: one `eth_getLogs` for the escrow's
 * events; when a `BatchDebited` log carries a single debit, one for the token's transfers into the escrow (an `exact`
 * settlement is the only debit whose transaction moves its amount from its buyer into the escrow); and one `eth_getBlockByNumber` per
 * block with debits, for the time a spend limit's window is counted from.
 * @example const events = await readEscrowEvents(client, { escrow, token, fromBlock: 1n, toBlock: 99n })
 */
export async function readEscrowEvents(client: PublicClient, p: ReadEscrowEventsParameters): Promise<EscrowEvent[]> {
  const logs = await client.getLogs({
    address: p.escrow,
    events: buyerEvents,
    fromBlock: p.fromBlock,
    toBlock: p.toBlock,
    strict: true,
  });
  const debits = new Map(
    logs
      .filter((log) => log.topics[0] === BATCH_DEBITED_TOPIC)
      .map((log) => [log, parseDebits([log as Log], p.escrow)]),
  );
  const single = [...debits.values()].some((entries) => entries.length === 1);
  const exactTransfers = single ? await transfersIntoEscrow(client, p) : new Set<string>();
  const blocks = [...new Set([...debits.keys()].map((log) => log.blockNumber))];
  const times = new Map(
    await Promise.all(
      blocks.map(async (blockNumber) => [blockNumber, (await client.getBlock({ blockNumber })).timestamp] as const),
    ),
  );

  const events: EscrowEvent[] = [];
  for (const log of logs) {
    const block = log.blockNumber;
    const entries = debits.get(log);
    if (entries) {
      const timestamp = times.get(block) ?? 0n;
      for (const d of entries)
        events.push({
          kind: "debited",
          buyer: d.buyer,
          block,
          nonce: d.nonce,
          amount: d.amount,
          // A single debit whose transaction moved exactly its amount from its buyer into the escrow: settleExact.
          fromBalance: !(
            entries.length === 1 && exactTransfers.has(transferKey(log.transactionHash, d.buyer, d.amount))
          ),
          timestamp,
        });
      continue;
    }
    switch (log.eventName) {
      case "Deposited":
      case "Withdrawn":
        events.push({
          kind: log.eventName === "Deposited" ? "deposited" : "withdrawn",
          buyer: log.args.buyer,
          block,
          balance: log.args.balance,
        });
        break;
      case "WithdrawalRequested":
        events.push({ kind: "withdrawalRequested", buyer: log.args.buyer, block, amount: log.args.amount });
        break;
      case "SpendLimitSet":
        events.push({
          kind: "spendLimitSet",
          buyer: log.args.buyer,
          block,
          limit: log.args.limit,
          period: log.args.period,
        });
        break;
      case "SpendLimitChangeRequested":
        events.push({
          kind: "spendLimitRequested",
          buyer: log.args.buyer,
          block,
          limit: log.args.limit,
          period: log.args.period,
          effectiveAt: log.args.effectiveAt,
        });
        break;
    }
  }
  return events;
}

/** A token transfer into the escrow, as `transferKey` names it: its transaction, sender and value. */
const transferKey = (transaction: string, from: string, value: bigint) =>
  `${transaction.toLowerCase()}:${from.toLowerCase()}:${value}`;

/** Every token transfer into the escrow in the range (transferKey). */
async function transfersIntoEscrow(client: PublicClient, p: ReadEscrowEventsParameters): Promise<Set<string>> {
  const transfers = await client.getLogs({
    address: p.token,
    event: transferEvent,
    args: { to: p.escrow },
    fromBlock: p.fromBlock,
    toBlock: p.toBlock,
    strict: true,
  });
  return new Set(transfers.map((t) => transferKey(t.transactionHash, t.args.from, t.args.value)));
}
