import { createHash } from "node:crypto";
import type { Address, Hex } from "viem";
import { getAddress } from "viem";
import { z } from "zod";
import { BuyerError } from "./buyerError.ts";

const amount = z.string().regex(/^(0|[1-9][0-9]{0,77})$/, "a base-unit amount is a decimal string of digits");
const address = z.string().regex(/^0x[0-9a-fA-F]{40}$/, "an address is 0x followed by 40 hex digits");
const bytes32 = z.string().regex(/^0x[0-9a-f]{64}$/, "an idemKey, resource id or hash is 0x and 64 lowercase hex");
const millis = z.int().nonnegative();
const prev = z.string().regex(/^[0-9a-f]{64}$/, "prev is the sha256 of the previous line");

/** One line of the spend ledger: the file is these records, one JSON object per line, appended only. */
export const ledgerRecordSchema = z.discriminatedUnion("kind", [
  z.strictObject({
    kind: z.literal("opened"),
    version: z.literal(1),
    chainId: z.int().positive(),
    escrow: address,
    buyer: address,
    /** The chain's debits of this buyer from this block on are in the file (the last day's, rebuilt at creation). */
    fromBlock: amount,
    /**
     * The first bitmap nonce index the chain showed unspent when the ledger was built, where older payments of the key
     * (before `fromBlock`, or of a ledger moved aside) spent those below it: no hold takes one of them.
     */
    nonceFloor: z.int().nonnegative().optional(),
    at: millis,
  }),
  z.strictObject({
    kind: z.literal("hold"),
    prev,
    idemKey: bytes32,
    resourceId: bytes32,
    cap: amount,
    /** The authorization's validBefore, unix seconds: after it the nonce can no longer be spent. */
    validBefore: amount,
    /** When the buyer signed, by its own clock. */
    signedAt: millis,
  }),
  z.strictObject({
    kind: z.literal("debit"),
    prev,
    idemKey: bytes32,
    resourceId: bytes32,
    amount,
    block: amount,
    /** The block's timestamp: when the chain debited. */
    at: millis,
    transaction: bytes32,
  }),
  z.strictObject({
    kind: z.literal("release"),
    prev,
    idemKey: bytes32,
    /** The block timestamp at or after validBefore that proved the nonce unspent. */
    at: millis,
  }),
  z.strictObject({
    kind: z.literal("spent"),
    prev,
    idemKey: bytes32,
    /**
     * The block timestamp, a day or more past validBefore, at which the chain showed the nonce spent and no log
     * between its signing and its validBefore showed its debit: debited, for at most the hold's cap, before validBefore.
     */
    at: millis,
  }),
  z.strictObject({ kind: z.literal("scanned"), prev, toBlock: amount, at: millis }),
]);

export type LedgerRecord = z.output<typeof ledgerRecordSchema>;
export type HoldRecord = Extract<LedgerRecord, { kind: "hold" }>;
export type DebitRecord = Extract<LedgerRecord, { kind: "debit" }>;

/** The ledger's content folded: every debit the chain proved, every hold and which are still open. */
export type LedgerState = {
  chainId: number;
  escrow: Address;
  buyer: Address;
  scannedTo: bigint;
  /** The opening record's `nonceFloor` (0 when it has none). */
  nonceFloor: number;
  debits: Map<Hex, DebitRecord>;
  holds: Map<Hex, HoldRecord>;
  released: Set<Hex>;
  /** Holds the chain showed spent whose debit no log showed (`spent` records): paid, amount unknown. */
  spentUnseen: Set<Hex>;
  /** sha256 of the last line: the next record's `prev`. */
  head: string;
};

/** The ledger file cannot be trusted: nothing is signed until it is fixed. */
export class LedgerUnreadableError extends BuyerError {
  override name = "LedgerUnreadableError";
  readonly file: string;
  constructor(file: string, problem: string) {
    super(
      "ledger_unreadable",
      `the spend ledger ${file} ${problem}, so no payment is signed. Restore it, or move it aside (mv "${file}" "${file}.bad"): the next payment then rebuilds the last day's spend from the chain's BatchDebited logs (payments still in flight are counted once mined)`,
    );
    this.file = file;
  }
}

/**
 * sha256 of one ledger line (without its newline): the `prev` of the record after it.
 * @example lineHash('{"kind":"opened",...}')
 */
export function lineHash(line: string): string {
  return createHash("sha256").update(line).digest("hex");
}

/**
 * Parses and checks a whole ledger file: every line must pass the record schema and name the hash of the line before
 * it (so no record was edited, removed or reordered), the first must open the ledger of this chain, escrow and buyer,
 * a release must follow its hold, and an idemKey is held and debited at most once. Any failure throws
 * `LedgerUnreadableError`: a ledger that cannot be trusted never lets a payment through.
 * @example const state = parseLedger(file, readFileSync(file, "utf8"), { chainId, escrow, buyer })
 */
export function parseLedger(
  file: string,
  text: string,
  owner: { chainId: number; escrow: Address; buyer: Address },
): LedgerState {
  if (!text.endsWith("\n")) throw new LedgerUnreadableError(file, "does not end with a complete line");
  const lines = text.slice(0, -1).split("\n");
  let state: LedgerState | undefined;
  let previous = "";
  for (const [index, line] of lines.entries()) {
    const at = `line ${index + 1}`;
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch {
      throw new LedgerUnreadableError(file, `has a line that is not JSON (${at})`);
    }
    const parsed = ledgerRecordSchema.safeParse(json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new LedgerUnreadableError(
        file,
        `has an invalid record (${at}${issue ? `, ${issue.path.join(".")}: ${issue.message}` : ""})`,
      );
    }
    const record = parsed.data;
    if (!state) {
      if (record.kind !== "opened") throw new LedgerUnreadableError(file, "does not start with its opening record");
      if (
        record.chainId !== owner.chainId ||
        getAddress(record.escrow) !== owner.escrow ||
        getAddress(record.buyer) !== owner.buyer
      )
        throw new LedgerUnreadableError(file, "belongs to another chain, escrow or buyer");
      state = {
        chainId: record.chainId,
        escrow: owner.escrow,
        buyer: owner.buyer,
        scannedTo: BigInt(record.fromBlock) - 1n,
        nonceFloor: record.nonceFloor ?? 0,
        debits: new Map(),
        holds: new Map(),
        released: new Set(),
        spentUnseen: new Set(),
        head: "",
      };
    } else {
      if (record.kind !== "opened" && record.prev !== lineHash(previous))
        throw new LedgerUnreadableError(file, `was edited: ${at} does not follow the line before it`);
      applyRecord(file, state, record, at);
    }
    previous = line;
  }
  if (!state) throw new LedgerUnreadableError(file, "is empty");
  state.head = lineHash(previous);
  return state;
}

/**
 * Folds one record into a ledger's state, refusing what an honest ledger never holds: a second hold or debit of one
 * idemKey, a release of a payment not held (or already settled), a scan that goes backwards.
 * @example applyRecord(file, state, { kind: "scanned", prev, toBlock: "120", at }, "line 7")
 */
export function applyRecord(file: string, state: LedgerState, record: LedgerRecord, at: string): void {
  if (record.kind === "hold") {
    if (state.holds.has(record.idemKey as Hex)) throw new LedgerUnreadableError(file, `holds an idemKey twice (${at})`);
    state.holds.set(record.idemKey as Hex, record);
  } else if (record.kind === "debit") {
    if (state.debits.has(record.idemKey as Hex))
      throw new LedgerUnreadableError(file, `debits an idemKey twice (${at})`);
    state.debits.set(record.idemKey as Hex, record);
  } else if (record.kind === "release") {
    const key = record.idemKey as Hex;
    if (!state.holds.has(key) || state.released.has(key) || state.debits.has(key))
      throw new LedgerUnreadableError(file, `releases a payment it does not hold (${at})`);
    state.released.add(key);
  } else if (record.kind === "spent") {
    const key = record.idemKey as Hex;
    if (!state.holds.has(key) || state.released.has(key) || state.debits.has(key) || state.spentUnseen.has(key))
      throw new LedgerUnreadableError(file, `marks spent a payment it does not hold (${at})`);
    state.spentUnseen.add(key);
  } else if (record.kind === "scanned") {
    const toBlock = BigInt(record.toBlock);
    if (toBlock < state.scannedTo) throw new LedgerUnreadableError(file, `scans backwards (${at})`);
    state.scannedTo = toBlock;
  } else throw new LedgerUnreadableError(file, `is opened twice (${at})`);
}
