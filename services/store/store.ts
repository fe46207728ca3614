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
  /**
   * Calls `onNotify` with the payload of every notification on `channel` (`SELECT pg_notify(channel, payload)`, by
   * any instance of the store, this one included; a notification sent in a transaction arrives once it commits) until
   * the returned function is called. PostgreSQL: a connection of its own runs `LISTEN`, and is opened again when it
   * drops, after which `onReconnect` runs (notifications sent meanwhile are lost). PGlite: the same, in process.
   */
  listen(channel: string, onNotify: (payload: string) => void, onReconnect?: () => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
  /**
   * PGlite: the seconds its statements have held the engine since the store opened. PGlite runs them on the calling
   * process's thread, so this is the share of that thread the store takes (over 0.5 a second, a service is bound by
   * its embedded store). PostgreSQL: null (its statements run in the server's processes).
   */
  busySeconds(): number | null;
  readonly kind: "postgres" | "pglite";
};
