import type { PGlite } from "@electric-sql/pglite";
import { parse, protocol } from "@electric-sql/pglite";

/** Distinct statement texts kept prepared per database; the least recently used is closed past this. */
const PREPARED_STATEMENTS_MAX = 256;

/** A prepared `SELECT *` whose table a migration altered since: prepared again, once. */
const planChanged = (error: unknown) =>
  (error as { code?: string }).code === "0A000" &&
  String((error as Error).message).includes("cached plan must not change result type");

type Prepared = { name: string; paramTypes: number[] };

const { serialize } = protocol;

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, part) => n + part.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/**
 * `PGlite.query` with each statement text parsed and described once per database, then run as one protocol exchange
 * (bind, describe, execute, sync) where `query` takes six (parse, describe the statement, bind, describe the portal,
 * execute, sync), parsing and planning it again each time. Parameters are serialized by the types PostgreSQL
 * described, as `query` does, and rows come back parsed the same way; it holds PGlite's locks as `query` does, so it
 * never runs inside another caller's transaction. Errors are PGlite's (`code`, `message`), with `query` set.
 * `onRan` is told the milliseconds each statement held the engine (from its turn under PGlite's locks, not from the
 * call: time spent waiting for another caller's statement is not counted twice).
 * @example const query = preparedQueries(db); const rows = await query("SELECT * FROM t WHERE id = $1", [id])
 */
export function preparedQueries(db: PGlite, max = PREPARED_STATEMENTS_MAX, onRan?: (ms: number) => void) {
  const statements = new Map<string, Prepared>();
  let named = 0;

  async function close(name: string): Promise<void> {
    await db.execProtocol(concat([serialize.close({ type: "S", name }), serialize.sync()]), { syncToFs: false });
  }

  async function prepare(text: string): Promise<Prepared> {
    const name = `p${++named}`;
    const { messages } = await db.execProtocol(
      concat([serialize.parse({ name, text }), serialize.describe({ type: "S", name }), serialize.sync()]),
      { syncToFs: false },
    );
    const prepared = { name, paramTypes: parse.parseDescribeStatementResults(messages) };
    statements.set(text, prepared);
    if (statements.size > max) {
      const [oldest, { name: closing }] = statements.entries().next().value as [string, Prepared];
      statements.delete(oldest);
      await close(closing);
    }
    return prepared;
  }

  async function run(text: string, params: readonly unknown[]): Promise<Record<string, unknown>[]> {
    let prepared = statements.get(text);
    if (prepared) {
      statements.delete(text);
      statements.set(text, prepared);
    } else prepared = await prepare(text);
    const { name, paramTypes } = prepared;
    const values = params.map((value, i) => {
      if (value === null || value === undefined) return null;
      const serializer = db.serializers[paramTypes[i] ?? 0];
      return serializer ? serializer(value) : String(value);
    });
    const { messages } = await db.execProtocol(
      concat([
        serialize.bind({ statement: name, values }),
        serialize.describe({ type: "P" }),
        serialize.execute({}),
        serialize.sync(),
      ]),
      { syncToFs: false },
    );
    return (parse.parseResults(messages, db.parsers)[0]?.rows ?? []) as Record<string, unknown>[];
  }

  return async function query<Row>(text: string, params: readonly unknown[] = []): Promise<Row[]> {
    const rows = await db._runExclusiveTransaction(() =>
      db._runExclusiveQuery(async () => {
        const started = performance.now();
        try {
          return await run(text, params);
        } catch (error) {
          const stale = statements.get(text);
          if (!stale || !planChanged(error)) throw Object.assign(error as Error, { query: text });
          statements.delete(text);
          await close(stale.name);
          return await run(text, params);
        } finally {
          onRan?.(performance.now() - started);
        }
      }),
    );
    await db.syncToFs();
    return rows as Row[];
  };
}
