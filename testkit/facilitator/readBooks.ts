/** The relayer's books as a facilitator's `/metrics` exports them (`facilitator_books_*`), amounts in token units. */
export type Books = { transactions: bigint; debits: bigint; gas: bigint; cost: bigint; treasury: bigint };

/**
 * Reads the relayer's books from a facilitator's `GET /metrics`; throws when a series is missing.
 * @example const before = await readBooks(facilitator.url)
 */
export async function readBooks(url: string): Promise<Books> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const read = (name: string) => {
    const value = new RegExp(`^facilitator_books_${name} (\\S+)$`, "m").exec(text)?.[1];
    if (value === undefined) throw new Error(`/metrics has no facilitator_books_${name}`);
    return BigInt(Math.round(Number(value)));
  };
  return {
    transactions: read("transactions"),
    debits: read("debits"),
    gas: read("gas_used"),
    cost: read("cost_units"),
    treasury: read("treasury_units"),
  };
}
