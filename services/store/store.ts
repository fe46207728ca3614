/** A query runner: plain SQL with positional parameters, rows back. */
export type Sql = {
  query<Row = Record<string, unknown>>(text: string, params?: readonly unknown[]): Promise<Row[]>;
};

/** A service's store: PostgreSQL when a URL is given, PGlite in a data directory otherwise. */
export type Store = Sql & {
  /** Runs `fn` in one transaction; it commits when `fn` resolves and rolls back when it throws. */
  transaction<T>(fn: (tx: Sql) => Promise<T>): Promise<T>;
  /**
   * Runs `fn` while holding the lock named `key` against every other holder of it. PostgreSQL: a transaction with
   * an advisory lock, so it holds across processes. PGlite (one process by nature): an in-process lock, and `fn`'s
   * queries commit one by one, so other keys are never blocked while `fn` waits on the network.
   */
  withLock<T>(key: string, fn: (sql: Sql) => Promise<T>): Promise<T>;
  close(): Promise<void>;
  readonly kind: "postgres" | "pglite";
};
