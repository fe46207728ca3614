import { appendFileSync, mkdirSync, readFileSync } from "node:fs";
import { dirname } from "node:path";

/** One settled debit, as the ledger file stores it (one JSON object per line). */
export type LedgerEntry = {
  /** Unix milliseconds of the settlement (the receipt's `settledAt`). */
  at: number;
  buyer: string;
  escrow: string;
  resourceId: string;
  idemKey: string;
  /** Base units debited (the receipt's amount, never the cap). */
  amount: string;
  transaction: string;
};

/** The spend ledger: settled debits on disk (shared by every server using the file) plus this process's in-flight caps. */
export type SpendLedger = {
  file: string;
  /** Sum of settled debits of this buyer and escrow at or after `since` (unix ms), read fresh from the file. */
  settledSince(since: number): bigint;
  /** Caps of payments signed by this process whose outcome is not known yet. */
  inFlight(): bigint;
  /** Holds `cap` against the budgets until the returned function is called. */
  hold(cap: bigint): () => void;
  /** Records a settled debit (once per idemKey). */
  record(entry: LedgerEntry): void;
};

/**
 * Opens the append-only ledger file of one buyer on one escrow. The file holds only settled debits (amount and
 * transaction from the verified receipt); it survives restarts and is shared by every server pointed at it.
 * @example const ledger = openSpendLedger(join(dataDir, "ledger.jsonl"), { buyer, escrow })
 */
export function openSpendLedger(file: string, owner: { buyer: string; escrow: string }): SpendLedger {
  const held = new Set<{ cap: bigint }>();
  const read = (): LedgerEntry[] => {
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch (error) {
      if ((error as { code?: string }).code === "ENOENT") return [];
      throw error;
    }
    const entries: LedgerEntry[] = [];
    for (const line of text.split("\n")) {
      if (!line.trim()) continue;
      try {
        const entry = JSON.parse(line) as LedgerEntry;
        if (
          entry.buyer.toLowerCase() === owner.buyer.toLowerCase() &&
          entry.escrow.toLowerCase() === owner.escrow.toLowerCase()
        )
          entries.push(entry);
      } catch {
        // a torn last line from a crash mid-append: the debit it held is re-recorded on recovery
      }
    }
    return entries;
  };
  return {
    file,
    settledSince(since) {
      const seen = new Set<string>();
      let sum = 0n;
      for (const entry of read()) {
        if (entry.at < since || seen.has(entry.idemKey)) continue;
        seen.add(entry.idemKey);
        sum += BigInt(entry.amount);
      }
      return sum;
    },
    inFlight() {
      let sum = 0n;
      for (const h of held) sum += h.cap;
      return sum;
    },
    hold(cap) {
      const h = { cap };
      held.add(h);
      return () => held.delete(h);
    },
    record(entry) {
      if (read().some((e) => e.idemKey === entry.idemKey)) return;
      mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
      appendFileSync(file, `${JSON.stringify(entry)}\n`, { mode: 0o600 });
    },
  };
}
