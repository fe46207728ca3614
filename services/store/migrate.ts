import type { Store } from "./store.ts";

/**
 * Applies the pending `migrations` (schema versions, in order; append, never edit an applied one) inside `schema`,
 * recording each in `<schema>.migration`, under an advisory lock so that instances starting together do not race.
 * @example await migrate(store, "marketplace", MIGRATIONS)
 */
export async function migrate(store: Store, schema: string, migrations: readonly string[]): Promise<void> {
  await store.transaction(async (tx) => {
    await tx.query("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", [`migrate:${schema}`]);
    await tx.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
    await tx.query(
      `CREATE TABLE IF NOT EXISTS ${schema}.migration (version INTEGER PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())`,
    );
    const rows = await tx.query<{ version: number }>(`SELECT version FROM ${schema}.migration`);
    const applied = new Set(rows.map((row) => Number(row.version)));
    for (const [index, sql] of migrations.entries()) {
      const version = index + 1;
      if (applied.has(version)) continue;
      await tx.query(`SET LOCAL search_path TO ${schema}`);
      for (const statement of splitStatements(sql)) await tx.query(statement);
      await tx.query(`INSERT INTO ${schema}.migration (version) VALUES ($1)`, [version]);
    }
  });
}

/**
 * A migration's statements: split at a `;` that ends a line, except inside a dollar-quoted body (`$$ … $$`), so a
 * function's semicolons stay with it.
 * @example splitStatements("CREATE TABLE a (x INT);\nCREATE TABLE b (y INT);") // two statements
 */
export function splitStatements(sql: string): string[] {
  const statements: string[] = [];
  let current = "";
  for (const [index, part] of sql.split("$$").entries()) {
    const quoted = index % 2 === 1;
    if (quoted) {
      current += `$$${part}$$`;
      continue;
    }
    const pieces = part.split(/;\s*\n/);
    current += pieces[0];
    for (const piece of pieces.slice(1)) {
      statements.push(current);
      current = piece;
    }
  }
  statements.push(current);
  return statements.map((s) => s.trim().replace(/;$/, "")).filter(Boolean);
}
