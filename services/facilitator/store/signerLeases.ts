import type { Sql } from "./createStore.ts";

/** The database's clock in milliseconds: every instance's lease is measured on the one clock they share. */
const NOW_MS = "(EXTRACT(EPOCH FROM clock_timestamp()) * 1000)::BIGINT";

/**
 * Marks `holder` live for `leaseMs` and returns how many holders are live (this one included); holders dead for a
 * minute past their beat are forgotten.
 */
export async function beatSignerHolder(sql: Sql, holder: string, leaseMs: number): Promise<number> {
  await sql.query(
    `INSERT INTO signer_lease_holder (holder, seen_until) SELECT $1, ${NOW_MS} + $2::BIGINT
     ON CONFLICT (holder) DO UPDATE SET seen_until = EXCLUDED.seen_until`,
    [holder, leaseMs],
  );
  await sql.query(`DELETE FROM signer_lease_holder WHERE seen_until < ${NOW_MS} - 60000`);
  const [row] = await sql.query<{ live: number | string }>(
    `SELECT count(*) AS live FROM signer_lease_holder WHERE seen_until >= ${NOW_MS}`,
  );
  return Math.max(1, Number(row?.live ?? 1));
}

/**
 * Takes the lease of signer `address` for `holder` for `leaseMs` when it is free or its lease has expired, or renews
 * it when `holder` holds it: one statement, on the database's clock. Returns whether `holder` holds it now.
 */
export async function holdSignerLease(sql: Sql, holder: string, address: string, leaseMs: number): Promise<boolean> {
  const rows = await sql.query(
    `INSERT INTO signer_lease AS l (address, holder, lease_until) SELECT $1, $2, ${NOW_MS} + $3::BIGINT
     ON CONFLICT (address) DO UPDATE SET holder = EXCLUDED.holder, lease_until = EXCLUDED.lease_until
      WHERE l.holder = EXCLUDED.holder OR l.lease_until < EXCLUDED.lease_until - $3::BIGINT
     RETURNING address`,
    [address.toLowerCase(), holder, leaseMs],
  );
  return rows.length === 1;
}

/**
 * Forgets every lease and holder: for PGlite, which one process opens at a time, so a lease left there is a dead run's
 * (a crash) and its restart need not wait for it to expire.
 */
export async function forgetSignerLeases(sql: Sql): Promise<void> {
  await sql.query("DELETE FROM signer_lease");
  await sql.query("DELETE FROM signer_lease_holder");
}

/** Gives up `holder`'s leases of `addresses` (all of them when omitted), and its beat when it gives up all. */
export async function releaseSignerLeases(sql: Sql, holder: string, addresses?: readonly string[]): Promise<void> {
  if (addresses) {
    await sql.query("DELETE FROM signer_lease WHERE holder = $1 AND address = ANY($2::TEXT[])", [
      holder,
      addresses.map((a) => a.toLowerCase()),
    ]);
    return;
  }
  await sql.query("DELETE FROM signer_lease WHERE holder = $1", [holder]);
  await sql.query("DELETE FROM signer_lease_holder WHERE holder = $1", [holder]);
}
