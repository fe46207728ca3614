import { createHash } from "node:crypto";
import type { Hex } from "viem";
import type { Store } from "../services/facilitator/store/createStore.ts";
import { createStore } from "../services/facilitator/store/createStore.ts";
import type { StoredResponse } from "../services/facilitator/store/reservations.ts";
import { parseCommandLine } from "../services/stack/parseCommandLine.ts";
import { openTestStore, TEST_STORES } from "../testkit/facilitator/openTestStore.ts";
import { storePaidCalls } from "../testkit/facilitator/storePaidCalls.ts";
import { envCount } from "./benchEnv.ts";
import { machineLine, writeBenchSection } from "./benchReport.ts";
import { measureStoreCpu } from "./storeCpu.ts";

parseCommandLine(
  `usage: npm run bench:store

Bytes the facilitator's store keeps per paid call: N committed-then-mined calls through the store's own statements
(storePaidCalls: reserve, claimAndCommit, recordSettlement), then the size of what they left, per table and per column, on PGlite
and PostgreSQL; and the CPU each statement of a paid call costs on PGlite (storeCpu.ts). Writes the "Store" section of
docs/benchmarks.md. Environment: BENCH_STORE_CALLS (1000), BENCH_STORE_RESPONSE_BYTES (512, the JSON body of each
response), BENCH_STORE_CPU_CALLS (8000), BENCH_STORE_CPU_GROUP (16, calls reserved or committed together),
BENCH_STORE_CPU_BLOCK (128, calls mined in one block), BENCH_DATABASE_URL (the tests' PostgreSQL: TEST_DATABASE_URL, else 127.0.0.1:5432, else one started for the run).`,
  {},
);

const CALLS = envCount("BENCH_STORE_CALLS", 1000);
const RESPONSE_BYTES = envCount("BENCH_STORE_RESPONSE_BYTES", 512);
const CPU_CALLS = envCount("BENCH_STORE_CPU_CALLS", 8000);
const CPU_GROUP = envCount("BENCH_STORE_CPU_GROUP", 16);
const CPU_BLOCK = envCount("BENCH_STORE_CPU_BLOCK", 128);
const CPU_BUYERS = 64;
if (process.env.BENCH_DATABASE_URL) process.env.TEST_DATABASE_URL = process.env.BENCH_DATABASE_URL;
/** Calls stored together, as a relayer batch lands them. */
const GROUP = 50;
const NOW = 1_800_000_000;

const hex = (n: number, bytes = 32): Hex => `0x${n.toString(16).padStart(bytes * 2, "0")}`;
const resourceId = hex(0x5e);
const response: StoredResponse = {
  status: 200,
  contentType: "application/json",
  body: { echoed: incompressible(Math.max(0, RESPONSE_BYTES - 13)) },
};

/** Text without repeats, as most answers are, so that the store's compression does not shrink it. */
function incompressible(length: number): string {
  let text = "";
  for (let i = 0; text.length < length; i++) text += createHash("sha256").update(String(i)).digest("base64");
  return text.slice(0, length);
}

/** Calls `first` to `first + GROUP - 1`, of 50 buyers, stored as one relayer batch. */
const payGroup = (store: Store, first: number, count: number) =>
  storePaidCalls(store, {
    resourceId,
    payments: Array.from({ length: count }, (_, i) => ({
      buyer: hex(0xb0000 + ((first + i) % 50), 20),
      idemKey: hex(first + i),
    })),
    now: NOW,
    validBefore: NOW + 300,
    block: 2 + Math.floor(first / GROUP),
    response,
  });

type Figures = { rows: string; columns: string; relation: string; vacuumed: string; wal: string };

async function measure(store: Store): Promise<Figures> {
  const tables = (
    await store.query<{ name: string }>(
      "SELECT tablename AS name FROM pg_tables WHERE schemaname = current_schema() AND tablename IN ('reservation', 'result', 'spent_nonce') ORDER BY tablename",
    )
  ).map((t) => t.name);
  const sum = async (expression: string, table: string) =>
    Number(
      (await store.query<{ n: string }>(`SELECT COALESCE(sum(${expression}), 0)::text AS n FROM ${table} t`))[0]?.n,
    );
  const wal = async () =>
    (await store.query<{ lsn: string }>("SELECT pg_current_wal_lsn()::text AS lsn"))[0]?.lsn ?? "";
  const walBefore = await wal();
  for (let first = 0; first < CALLS; first += GROUP) {
    await payGroup(store, 1 + first, Math.min(GROUP, CALLS - first));
  }
  const walBytes = Number(
    (await store.query<{ n: string }>("SELECT (pg_current_wal_lsn() - $1::pg_lsn)::text AS n", [walBefore]))[0]?.n,
  );
  const perCall = (bytes: number) => Math.round(bytes / CALLS).toLocaleString("en-US");
  const rows: string[] = [];
  const columns: string[] = [];
  let total = 0;
  for (const table of tables) {
    const bytes = await sum("pg_column_size(t.*)", table);
    const count = await sum("1", table);
    total += bytes;
    rows.push(`${table}: ${count / CALLS} × ${perCall((bytes / count) * CALLS)}`);
    const names = (
      await store.query<{ name: string }>(
        "SELECT column_name AS name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1 ORDER BY ordinal_position",
        [table],
      )
    ).map((c) => c.name);
    for (const name of names) {
      const size = await sum(`pg_column_size(t.${name})`, table);
      if (size / CALLS >= 100) columns.push(`${table}.${name} ${perCall(size)}`);
    }
  }
  const relationBytes = async () => {
    let bytes = 0;
    for (const table of tables) {
      const [row] = await store.query<{ n: string }>("SELECT pg_total_relation_size($1)::text AS n", [table]);
      bytes += Number(row?.n);
    }
    return bytes;
  };
  const relation = await relationBytes();
  for (const table of tables) await store.query(`VACUUM FULL ${table}`);
  const vacuumed = await relationBytes();
  return {
    rows: `${perCall(total)} (${rows.join(", ")})`,
    columns: columns.join(", "),
    relation: perCall(relation),
    vacuumed: perCall(vacuumed),
    wal: store.kind === "pglite" ? perCall(walBytes) : "(shared server)",
  };
}

const lines = [
  "| store | live row bytes per call: rows × bytes per row | columns of 100 B or more, per call | table + index bytes per call | after VACUUM FULL | WAL bytes per call |",
  "| --- | --- | --- | --- | --- | --- |",
];
for (const kind of TEST_STORES) {
  const store = await openTestStore(kind);
  try {
    const f = await measure(store);
    lines.push(`| ${kind} | ${f.rows} | ${f.columns} | ${f.relation} | ${f.vacuumed} | ${f.wal} |`);
  } finally {
    await store.close();
  }
}
const cpuStore = await createStore({ dataDir: "memory://" });
const cpu = await measureStoreCpu(cpuStore, {
  calls: CPU_CALLS,
  group: CPU_GROUP,
  block: CPU_BLOCK,
  buyers: CPU_BUYERS,
  response: { status: 200, contentType: "application/json", body: { echo: { hello: "bench" } } },
}).finally(() => cpuStore.close());
const ms = (value: number) => `${value.toFixed(3)} ms`;
const markdown = `## Store

Command: \`npm run bench:store\` (bench/storeRows.ts). Machine: ${machineLine()}. ${CALLS.toLocaleString("en-US")} paid calls, each
reserved, committed and recorded mined through the facilitator's store statements (\`storePaidCalls\`: 50 buyers,
batches of ${GROUP}), with ${RESPONSE_BYTES}-byte JSON response bodies that do not compress and the receipts the facilitator
makes. Live row bytes are \`pg_column_size\` of each row (TOAST-compressed where PostgreSQL compresses); table + index
bytes are \`pg_total_relation_size\`, dead row versions included, then after \`VACUUM FULL\`; WAL is what PGlite's
log grew by (PostgreSQL's is shared with other databases on the server).

${lines.join("\n")}

CPU per paid call of the store's statements on PGlite (in this process, so its CPU is the store's): ${CPU_CALLS.toLocaleString("en-US")}
committed calls over ${CPU_BUYERS} buyers in turn, reserved and committed ${CPU_GROUP} at a time, ${CPU_BLOCK} mined to a block, the echo sample's response,
each statement as the facilitator runs it (bench/storeCpu.ts): verify's reservation against the escrow book, settle's
commit, the relayer's record of the mined batch, and the escrow book's advance over that block.

| reserve (verify) | commit (settle) | record mined | escrow book advance | all |
| --- | --- | --- | --- | --- |
| ${ms(cpu.reserve)} | ${ms(cpu.commit)} | ${ms(cpu.mined)} | ${ms(cpu.book)} | ${ms(cpu.total)} |
`;
process.stdout.write(markdown);
writeBenchSection("store", markdown);
