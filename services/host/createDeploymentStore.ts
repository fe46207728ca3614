import { timingSafeEqual } from "node:crypto";
import { join } from "node:path";
import type { Hex } from "viem";
import { openStore } from "../store/openStore.ts";
import type { Store } from "../store/store.ts";
import type { DeploymentRequest } from "./deploymentSchema.ts";
import { deploymentSeal } from "./deploymentSeal.ts";
import { MIGRATIONS } from "./store/migrations.ts";

/** A deployment as persisted: the deploy request, its resource id, and the agent id once minted. */
export type Deployment = DeploymentRequest & {
  resourceId: Hex;
  agentId: string | null;
  deployedAt: string;
  updatedAt: string;
};

/** A stored deployment and the version its last write took. */
export type StoredDeployment = { deployment: Deployment; version: number };

/**
 * The deployments every host instance serves, in the shared store, with change notification between instances. Every
 * row carries the seal of its record (`deploymentSeal`); a row whose seal does not match (written by anyone but a
 * host holding the key) is treated as absent: `list` and `get` leave it out, and `onRefused` names it.
 */
export type DeploymentStore = {
  list(): Promise<StoredDeployment[]>;
  get(slug: string): Promise<StoredDeployment | undefined>;
  /** Every slug with its version: what an instance compares its own view with. */
  versions(): Promise<Map<string, number>>;
  /**
   * Writes the deployment `build` makes of the stored one (undefined when there is none), sealed, under the slug's
   * lock, so that concurrent writes through different instances never interleave; `build` answering undefined writes
   * nothing. A row whose seal does not match is nobody's to build on: nothing is written, and `refused` says so.
   */
  write(
    slug: string,
    build: (existing: Deployment | undefined) => Deployment | undefined,
  ): Promise<{ written: StoredDeployment | undefined; existing: Deployment | undefined; refused?: true }>;
  /** Removes a deployment, answering it (undefined when there was none). */
  remove(slug: string): Promise<Deployment | undefined>;
  /**
   * Calls `onChange(slug)` whenever any instance writes or removes a deployment, and `onMissed()` when notifications
   * may have been lost (the listening connection dropped), until the returned function is called.
   */
  subscribe(onChange: (slug: string) => void, onMissed: () => void): Promise<() => Promise<void>>;
  readonly store: Store;
  close(): Promise<void>;
};

/**
 * Where the deployments are kept: PostgreSQL (`databaseUrl`) in `schema`, or PGlite under `dataDir`; the key that
 * seals each row; who to tell about a row whose seal does not match (once per version of it).
 */
export type CreateDeploymentStoreParameters = {
  databaseUrl?: string | undefined;
  dataDir: string;
  schema: string;
  sealKey: Buffer;
  onRefused?: ((slug: string) => void) | undefined;
};

type Row = { slug: string; version: string | number; record: string; seal: string | null };

const COLUMNS = "slug, version, record, seal";

/**
 * Opens the deployment store (migrated) in services/store: PostgreSQL with `databaseUrl`, else PGlite in
 * `{dataDir}/store`; one code path for both. Writes notify `{schema}_deployment` with the slug (LISTEN/NOTIFY on
 * PostgreSQL, PGlite's own in process), so every instance learns of a change as it commits. Each write seals its row
 * with `sealKey`, and each read checks the seal (see `DeploymentStore`).
 * @example const deployments = await createDeploymentStore({ databaseUrl: process.env.DATABASE_URL, dataDir: '.data/host', schema: 'host', sealKey })
 */
export async function createDeploymentStore(p: CreateDeploymentStoreParameters): Promise<DeploymentStore> {
  const store = await openStore({
    databaseUrl: p.databaseUrl,
    dataDir: join(p.dataDir, "store"),
    schema: p.schema,
    migrations: MIGRATIONS,
    maxConnections: 5,
  });
  const channel = `${p.schema}_deployment`;
  const sealOf = (slug: string, record: string) => deploymentSeal(p.sealKey, p.schema, slug, record);
  const refused = new Map<string, number>();
  const sealed = (row: Row): boolean => {
    const expected = Buffer.from(sealOf(row.slug, row.record), "hex");
    const given = Buffer.from(row.seal ?? "", "hex");
    return given.length === expected.length && timingSafeEqual(given, expected);
  };
  /** The row as a stored deployment, or undefined (told once per version) when its seal does not match. */
  const stored = (row: Row): StoredDeployment | undefined => {
    const version = Number(row.version);
    if (!sealed(row)) {
      if (refused.get(row.slug) !== version) p.onRefused?.(row.slug);
      refused.set(row.slug, version);
      return undefined;
    }
    refused.delete(row.slug);
    return { deployment: JSON.parse(row.record) as Deployment, version };
  };
  // The embedded store has no other writer than this host (it lives in DATA_DIR, beside the key): rows written before
  // deployments were sealed are sealed as they stand. In PostgreSQL they stay unsealed, and unserved.
  if (store.kind === "pglite") {
    for (const row of await store.query<Row>(`SELECT ${COLUMNS} FROM deployment WHERE seal IS NULL`))
      await store.query("UPDATE deployment SET seal = $2 WHERE slug = $1", [row.slug, sealOf(row.slug, row.record)]);
  }
  const get = async (slug: string) => {
    const [row] = await store.query<Row>(`SELECT ${COLUMNS} FROM deployment WHERE slug = $1`, [slug]);
    return row ? stored(row) : undefined;
  };
  return {
    store,
    async list() {
      const rows = await store.query<Row>(`SELECT ${COLUMNS} FROM deployment ORDER BY slug`);
      return rows.map(stored).filter((row): row is StoredDeployment => row !== undefined);
    },
    get,
    async versions() {
      const rows = await store.query<{ slug: string; version: string | number }>(
        "SELECT slug, version FROM deployment",
      );
      return new Map(rows.map((row) => [row.slug, Number(row.version)]));
    },
    write(slug, build) {
      return store.withLock(`deployment:${slug}`, async (sql) => {
        const [row] = await sql.query<Row>(`SELECT ${COLUMNS} FROM deployment WHERE slug = $1`, [slug]);
        const existing = row ? stored(row)?.deployment : undefined;
        if (row && !existing) return { written: undefined, existing, refused: true as const };
        const deployment = build(existing);
        if (!deployment) return { written: undefined, existing };
        const record = JSON.stringify(deployment);
        const [written] = await sql.query<Row>(
          `INSERT INTO deployment (slug, creator, resource_id, record, seal) VALUES ($1, $2, $3, $4, $5)
           ON CONFLICT (slug) DO UPDATE SET creator = $2, resource_id = $3, record = $4, seal = $5,
             version = nextval('deployment_version')
           RETURNING ${COLUMNS}`,
          [slug, deployment.creator, deployment.resourceId, record, sealOf(slug, record)],
        );
        await sql.query("SELECT pg_notify($1, $2)", [channel, slug]);
        return { written: stored(written as Row), existing };
      });
    },
    remove(slug) {
      return store.withLock(`deployment:${slug}`, async (sql) => {
        const [removed] = await sql.query<Row>(`DELETE FROM deployment WHERE slug = $1 RETURNING ${COLUMNS}`, [slug]);
        if (!removed) return undefined;
        refused.delete(slug);
        await sql.query("SELECT pg_notify($1, $2)", [channel, slug]);
        return JSON.parse(removed.record) as Deployment;
      });
    },
    subscribe: (onChange, onMissed) => store.listen(channel, onChange, onMissed),
    close: () => store.close(),
  };
}
