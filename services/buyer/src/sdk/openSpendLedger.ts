import { appendFileSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Address, Hex } from "viem";
import { getAddress } from "viem";
import { bitmapNonce, bitmapNonceIndex, LEDGER_NONCE_INDEXES } from "../../../protocol/bitmapNonce.ts";
import { CHAIN_ID } from "../../../protocol/constants.ts";
import type { BuyerChain } from "./buyerChain.ts";
import { BuyerError } from "./buyerError.ts";
import { nonceSpent } from "./nonceSpent.ts";
import type { DebitRecord, HoldRecord, LedgerRecord, LedgerState } from "./parseLedger.ts";
import { applyRecord, LedgerUnreadableError, lineHash, parseLedger } from "./parseLedger.ts";
import type { ChainDebit } from "./readDebits.ts";
import { readDebits } from "./readDebits.ts";
import { withFileLock } from "./withFileLock.ts";

/** What the ledger knows once brought up to the chain: proven debits, and the caps still held. */
export type LedgerView = {
  /**
   * Sum of the debits the chain proved, dated by their block, at or after `since` (unix ms). A payment recorded spent
   * with its debit unseen adds nothing: it is recorded a day past its validBefore, when its debit, mined before
   * then, lies outside every budget window.
   */
  debitedSince(since: number): bigint;
  /** Caps of the payments signed and not yet proven debited, or void (unspent past their validBefore). */
  held: bigint;
  /**
   * What the ledger knows of one payment; `spentUnseen`: the chain spent its nonce (it was debited, at most its cap,
   * before its validBefore) and no log showed the debit.
   */
  payment(idemKey: Hex): { hold?: HoldRecord; debit?: DebitRecord; released: boolean; spentUnseen: boolean };
  /** Every payment the ledger knows (signed here, or debited on chain by any process of the key), newest first. */
  payments(): LedgerPayment[];
  /** The timestamp (unix ms) of the latest block read. */
  chainTime: number;
};

/**
 * One payment as the ledger knows it: `paid` (the chain debited it; without `debit` when only its spent nonce showed
 * it), `not_paid` (void: past its validBefore, never debited), or `pending` (signed; the chain may still debit it
 * until validBefore).
 */
export type LedgerPayment = {
  idemKey: Hex;
  resourceId: Hex;
  status: "paid" | "not_paid" | "pending";
  hold?: HoldRecord;
  debit?: DebitRecord;
  /** Unix ms: when the chain debited it, else when it was signed. */
  at: number;
};

/**
 * A payment about to be signed, held against every budget until the chain says what became of it. Without an
 * idemKey the ledger allocates the key's next bitmap nonce (see `hold`).
 */
export type LedgerHold = { idemKey?: Hex | undefined; resourceId: Hex; cap: bigint; validBefore: bigint };

/** The spend ledger of one buyer key on one escrow and chain, shared by every process of that key. */
export type SpendLedger = {
  file: string;
  /**
   * Brings the ledger up to the chain, then, under the lock, shows `decide` the spend; unless `decide` throws (a
   * refusal: nothing is held, nothing may be signed), appends the hold before returning its idemKey. A hold without
   * an idemKey gets the key's next bitmap nonce: one past the highest bitmap index any hold or debit of the ledger
   * carries, allocated and held under the same lock, so the processes of one key never allocate one twice and their
   * calls share the escrow's nonce words (docs/protocol.md).
   */
  hold(hold: LedgerHold, decide: (view: LedgerView) => void): Promise<Hex>;
  /** Brings the ledger up to the chain and returns what it knows. */
  read(): Promise<LedgerView>;
};

export type OpenSpendLedgerParameters = {
  /** The per-user data folder; the file is named after chain, escrow and buyer. */
  dir: string;
  chain: BuyerChain;
  buyer: Address;
  /** How far back a new ledger is rebuilt from the chain (ms); default 25 h (budgets look back a day). */
  lookbackMs?: number;
};

/** A scan of more blocks than this that would reach back past the lookback starts at the lookback instead. */
const LONG_SCAN_BLOCKS = 20_000n;

/**
 * Blocks each scan reads again before the last one it marked: a provider whose logs lag its head answered those
 * without their newest debits, and a debit read twice is recorded once.
 */
const SCAN_OVERLAP_BLOCKS = 64n;

/** How far before a hold's own `signedAt` (the buyer's clock) its debit is looked for when the scans missed it (ms). */
const SIGNED_AT_SKEW_MS = 10 * 60_000;

/**
 * How long past its validBefore a spent hold's debit is looked for (ms): a day, the longest budget window. Past it the
 * debit, mined before validBefore, lies outside every window, and the hold is recorded `spent` (paid, amount unseen).
 */
const SPENT_SEARCH_MS = 24 * 3_600_000;

type Facts = {
  from: bigint;
  toBlock: bigint;
  time: number;
  debits: ChainDebit[];
  rebuild: boolean;
  gapOk: boolean;
  /** Holds past their validBefore whose nonce the chain showed unspent at `toBlock`: the only ones released. */
  unspent: Set<Hex>;
  /** Holds the chain showed spent whose debit no log showed by SPENT_SEARCH_MS past their validBefore. */
  spentUnseen: Set<Hex>;
  /** A rebuilt ledger's first bitmap nonce index the chain shows unspent past the debits it read (nonceFloor). */
  nonceFloor: number;
};

const RETRY = Symbol("retry");

/** A record before it is linked to the line before it. */
type Unlinked = LedgerRecord extends infer R ? (R extends { prev: string } ? Omit<R, "prev"> : never) : never;

/**
 * The ledger file of a buyer key: `ledger-<chainId>-<escrow>-<buyer>.jsonl` in `dir`.
 * @example ledgerFile(dataDir, { chainId: 5042002, escrow, buyer })
 */
export function ledgerFile(dir: string, owner: { chainId: number; escrow: Address; buyer: Address }): string {
  return join(dir, `ledger-${owner.chainId}-${owner.escrow.toLowerCase()}-${owner.buyer.toLowerCase()}.jsonl`);
}

/**
 * Opens the spend ledger of one buyer key: append-only records (holds of signed payments, debits and releases the
 * chain proved, scan marks) checked on every load, under a lock shared by every process of the key. The chain is
 * the truth: before every decision the ledger reads the buyer's debits in the escrow's `BatchDebited` logs since its last scan,
 * dates each debit by its block, and releases a hold only once a block at or past its validBefore shows its nonce
 * unspent. A missing file is rebuilt from the last 25 h of logs; an unreadable one refuses (`LedgerUnreadableError`).
 * @example const ledger = openSpendLedger({ dir, chain, buyer: account.address })
 */
export function openSpendLedger(p: OpenSpendLedgerParameters): SpendLedger {
  const chainId = p.chain.publicClient.chain?.id ?? CHAIN_ID;
  const owner = { chainId, escrow: p.chain.escrow, buyer: getAddress(p.buyer) };
  const file = ledgerFile(p.dir, owner);
  const lock = `${file}.lock`;
  const lookbackMs = p.lookbackMs ?? 25 * 3_600_000;

  const load = (): LedgerState | undefined => {
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (code === "ENOENT") return undefined;
      throw new LedgerUnreadableError(file, `cannot be read (${code ?? (error as Error).message})`);
    }
    return parseLedger(file, text, owner);
  };

  const chainFacts = async (before: LedgerState | undefined): Promise<Facts> => {
    const latest = await p.chain.publicClient.getBlock({ blockTag: "latest" });
    const time = Number(latest.timestamp) * 1000;
    let from = before
      ? max(before.scannedTo + 1n - SCAN_OVERLAP_BLOCKS, 0n)
      : await firstBlockSince(p.chain, latest.number, time - lookbackMs);
    let gapOk = !before;
    if (before && latest.number - from > LONG_SCAN_BLOCKS) {
      const since = await firstBlockSince(p.chain, latest.number, time - lookbackMs);
      if (since > from) [from, gapOk] = [since, true];
    }
    const debits =
      from <= latest.number
        ? await readDebits(p.chain, { buyer: owner.buyer, fromBlock: from, toBlock: latest.number })
        : [];
    // A hold past its window is released only on the chain's word that its nonce is unspent. A spent one was debited
    // where no scan read it (a provider's logs lagging past the overlap, a day skipped by a long gap): its debit is
    // looked for between when it was signed and its validBefore, and the hold stays until it is found, for a day at
    // most; then it is recorded spent, its debit unseen. A nonce that cannot be read waits.
    const unspent = new Set<Hex>();
    const spentUnseen = new Set<Hex>();
    for (const hold of before ? dueHolds(before, time) : []) {
      const key = hold.idemKey as Hex;
      if (debits.some((d) => d.idemKey === key)) continue;
      const spent = await nonceSpent(p.chain, owner.buyer, key).catch(() => undefined);
      if (spent === false) unspent.add(key);
      if (spent !== true) continue;
      const validBefore = Number(hold.validBefore) * 1000;
      const since = await firstBlockSince(p.chain, latest.number, hold.signedAt - SIGNED_AT_SKEW_MS);
      const until = await firstBlockSince(p.chain, latest.number, validBefore + 1);
      const found = await readDebits(p.chain, { buyer: owner.buyer, fromBlock: since, toBlock: until });
      debits.push(...found.filter((d) => d.idemKey === key));
      if (!found.some((d) => d.idemKey === key) && time >= validBefore + SPENT_SEARCH_MS) spentUnseen.add(key);
    }
    // A ledger built now knows nothing of the key's payments before its range: the chain says where its nonces are free.
    const nonceFloor = before
      ? 0
      : await firstUnspentIndex(p.chain, owner.buyer, nextIndexAfter(debits.map((d) => d.idemKey)));
    return { from, toBlock: latest.number, time, debits, rebuild: !before, gapOk, unspent, spentUnseen, nonceFloor };
  };

  const sync = async <T>(
    under: (view: LedgerView, record: (r: Unlinked) => void, state: LedgerState) => T,
  ): Promise<T> => {
    for (let attempt = 0; attempt < 3; attempt++) {
      const before = await withFileLock(lock, load);
      const facts = await chainFacts(before);
      const outcome = await withFileLock(lock, () => {
        const lines: string[] = [];
        let state = load();
        if (!state) {
          if (!facts.rebuild) return RETRY;
          const opened = JSON.stringify({
            kind: "opened",
            version: 1,
            ...owner,
            fromBlock: facts.from.toString(),
            ...(facts.nonceFloor > 0 ? { nonceFloor: facts.nonceFloor } : {}),
            at: Date.now(),
          } satisfies LedgerRecord);
          lines.push(opened);
          state = parseLedger(file, `${opened}\n`, owner);
        } else if (!facts.gapOk && facts.from > state.scannedTo + 1n) return RETRY;
        const current = state;
        const record = (r: Unlinked) => {
          const linked = { ...r, prev: current.head } as LedgerRecord;
          const line = JSON.stringify(linked);
          applyRecord(file, current, linked, "a new record");
          lines.push(line);
          current.head = lineHash(line);
        };
        for (const d of facts.debits) {
          if (current.debits.has(d.idemKey)) continue;
          record({
            kind: "debit",
            idemKey: d.idemKey,
            resourceId: d.resourceId.toLowerCase(),
            amount: d.amount.toString(),
            block: d.blockNumber.toString(),
            at: d.at,
            transaction: d.transaction.toLowerCase(),
          });
        }
        if (facts.toBlock > current.scannedTo)
          record({ kind: "scanned", toBlock: facts.toBlock.toString(), at: facts.time });
        for (const hold of dueHolds(current, facts.time))
          if (facts.unspent.has(hold.idemKey as Hex))
            record({ kind: "release", idemKey: hold.idemKey, at: facts.time });
          else if (facts.spentUnseen.has(hold.idemKey as Hex))
            record({ kind: "spent", idemKey: hold.idemKey, at: facts.time });
        try {
          return under(viewOf(current, facts.time), record, current);
        } finally {
          if (lines.length > 0) {
            mkdirSync(p.dir, { recursive: true, mode: 0o700 });
            appendFileSync(file, lines.map((line) => `${line}\n`).join(""), { mode: 0o600 });
          }
        }
      });
      if (outcome !== RETRY) return outcome as T;
    }
    throw new LedgerUnreadableError(file, "kept changing under every read (another process rewrites it)");
  };

  return {
    file,
    hold(hold, decide) {
      return sync((view, record, state) => {
        decide(view);
        const idemKey = (hold.idemKey ?? bitmapNonce(nextBitmapIndex(state))).toLowerCase() as Hex;
        record({
          kind: "hold",
          idemKey,
          resourceId: hold.resourceId.toLowerCase(),
          cap: hold.cap.toString(),
          validBefore: hold.validBefore.toString(),
          signedAt: Date.now(),
        });
        return idemKey;
      });
    },
    read() {
      return sync((view) => view);
    },
  };
}

/** The holds neither debited, released nor recorded spent whose validBefore is past at chain time `time` (unix ms). */
function dueHolds(state: LedgerState, time: number): HoldRecord[] {
  return openHolds(state).filter((h) => time >= Number(h.validBefore) * 1000);
}

/** The holds whose fate the ledger does not know yet: neither debited, released nor recorded spent. */
function openHolds(state: LedgerState): HoldRecord[] {
  return [...state.holds.values()].filter((h) => {
    const key = h.idemKey as Hex;
    return !state.debits.has(key) && !state.released.has(key) && !state.spentUnseen.has(key);
  });
}

const max = (a: bigint, b: bigint) => (a > b ? a : b);

/**
 * One past the highest bitmap nonce index of the ledger's range (below LEDGER_NONCE_INDEXES) among `keys`, and at
 * least `floor`; indexes above the range are the words of processes without a ledger.
 */
function nextIndexAfter(keys: Iterable<Hex>, floor = 0): number {
  let next = floor;
  for (const key of keys) {
    const index = bitmapNonceIndex(key);
    if (index !== null && index < LEDGER_NONCE_INDEXES && index >= next) next = index + 1;
  }
  return next;
}

/**
 * The first bitmap nonce index at or above `from` whose nonce the escrow has not spent, for a ledger's payments that
 * spend indexes in order: found by doubling steps and then halving, a few reads for thousands of spent indexes.
 */
async function firstUnspentIndex(chain: BuyerChain, buyer: Address, from: number): Promise<number> {
  const spent = (index: number) => nonceSpent(chain, buyer, bitmapNonce(index));
  if (!(await spent(from))) return from;
  let [low, step] = [from, 1];
  while (from + step < LEDGER_NONCE_INDEXES && (await spent(from + step))) [low, step] = [from + step, step * 2];
  let high = Math.min(from + step, LEDGER_NONCE_INDEXES);
  while (high - low > 1) {
    const middle = Math.floor((low + high) / 2);
    if (await spent(middle)) low = middle;
    else high = middle;
  }
  return high;
}

/**
 * One past the highest bitmap nonce index of the ledger's range among its holds and debits, and at least the
 * floor it was built with (0 when it has none).
 */
function nextBitmapIndex(state: LedgerState): number {
  const next = nextIndexAfter([...state.holds.keys(), ...state.debits.keys()], state.nonceFloor);
  if (next >= LEDGER_NONCE_INDEXES)
    throw new BuyerError(
      "nonces_exhausted",
      "this key has used every bitmap nonce index of its spend ledger; pay with another key",
    );
  return next;
}

function viewOf(state: LedgerState, chainTime: number): LedgerView {
  const open = openHolds(state);
  const debits = [...state.debits.values()];
  return {
    debitedSince: (since) => debits.filter((d) => d.at >= since).reduce((sum, d) => sum + BigInt(d.amount), 0n),
    held: open.reduce((sum, h) => sum + BigInt(h.cap), 0n),
    payment: (idemKey) => {
      const key = idemKey.toLowerCase() as Hex;
      return {
        hold: state.holds.get(key),
        debit: state.debits.get(key),
        released: state.released.has(key),
        spentUnseen: state.spentUnseen.has(key),
      };
    },
    payments: () => {
      const keys = new Set<Hex>([...state.holds.keys(), ...state.debits.keys()]);
      return [...keys]
        .map((idemKey): LedgerPayment => {
          const hold = state.holds.get(idemKey);
          const debit = state.debits.get(idemKey);
          const status =
            debit || state.spentUnseen.has(idemKey) ? "paid" : state.released.has(idemKey) ? "not_paid" : "pending";
          const resourceId = (debit?.resourceId ?? hold?.resourceId) as Hex;
          return { idemKey, resourceId, status, hold, debit, at: debit?.at ?? hold?.signedAt ?? 0 };
        })
        .sort((a, b) => b.at - a.at);
    },
    chainTime,
  };
}

/** The first block whose timestamp is at or after `since` (unix ms), by bisection up to `latest`. */
async function firstBlockSince(chain: BuyerChain, latest: bigint, since: number): Promise<bigint> {
  const timeOf = async (blockNumber: bigint) =>
    Number((await chain.publicClient.getBlock({ blockNumber })).timestamp) * 1000;
  let [low, high] = [0n, latest];
  if ((await timeOf(low)) >= since) return low;
  while (high - low > 1n) {
    const middle = (low + high) / 2n;
    if ((await timeOf(middle)) >= since) high = middle;
    else low = middle;
  }
  return high;
}
