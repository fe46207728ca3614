import { join } from "node:path";
import type { Hex } from "viem";
import { openStore } from "../store/openStore.ts";
import type { Store } from "../store/store.ts";
import type { DeploymentRequest } from "./deploymentSchema.ts";
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

/** The deployments every host instance serves, in the shared store, with change notification between instances. */
export type DeploymentStore = {
  list(): Promise<StoredDeployment[]>;
  get(slug: string): Promise<StoredDeployment | undefined>;
  /** Every slug with its version: what an instance compares its own view with. */
  versions(): Promise<Map<string, number>>;
  /**
   * Writes the deployment `build` makes of the stored one (undefined when there is none), under the slug's lock, so
   * that concurrent writes through different instances never interleave; `build` answering undefined writes nothing.
   */
  write(
    slug: string,
    build: (existing: Deployment | undefined) => Deployment | undefined,
  ): Promise<{ written: StoredDeployment | undefined; existing: Deployment | undefined }>;
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

/** Where the deployments are kept: PostgreSQL (`databaseUrl`) in `schema`, or PGlite under `dataDir`. */
export type CreateDeploymentStoreParameters = {
  databaseUrl?: string | undefined;
  dataDir: string;
  schema: string;
};

type Row = { slug: string; version: string | number; record: string };

const stored = (row: Row): StoredDeployment => ({
  deployment: JSON.parse(row.record) as Deployment,
  version: Number(row.version),
});

/**
 * Opens the deployment store (migrated) in services/store: PostgreSQL with `databaseUrl`, else PGlite in
 * `{dataDir}/store`; one code path for both. Writes notify `{schema}_deployment` with the slug (LISTEN/NOTIFY on
 * PostgreSQL, PGlite's own in process), so every instance learns of a change as it commits.
 * @example const deployments = await createDeploymentStore({ databaseUrl: process.env.DATABASE_URL, dataDir: '.data/host', schema: 'host' })
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
  const get = async (slug: string) => {
    const [row] = await store.query<Row>("SELECT slug, version, record FROM deployment WHERE slug = $1", [slug]);
    return row ? stored(row) : undefined;
  };
  return {
    store,
    async list() {
      const rows = await store.query<Row>("SELECT slug, version, record FROM deployment ORDER BY slug");
      return rows.map(stored);
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
        const [row] = await sql.query<Row>("SELECT slug, version, record FROM deployment WHERE slug = $1", [slug]);
        const existing = row ? stored(row).deployment : undefined;
        const deployment = build(existing);
        if (!deployment) return { written: undefined, existing };
        const [written] = await sql.query<Row>(
          `INSERT INTO deployment (slug, creator, resource_id, record) VALUES ($1, $2, $3, $4)
           ON CONFLICT (slug) DO UPDATE SET creator = $2, resource_id = $3, record = $4,
             version = nextval('deployment_version')
           RETURNING slug, version, record`,
          [slug, deployment.creator, deployment.resourceId, JSON.stringify(deployment)],
        );
        await sql.query("SELECT pg_notify($1, $2)", [channel, slug]);
        return { written: stored(written as Row), existing };
      });
    },
    remove(slug) {
      return store.withLock(`deployment:${slug}`, async (sql) => {
        const [removed] = await sql.query<Row>(
          "DELETE FROM deployment WHERE slug = $1 RETURNING slug, version, record",
          [slug],
        );
        if (!removed) return undefined;
        await sql.query("SELECT pg_notify($1, $2)", [channel, slug]);
        return stored(removed).deployment;
      });
    },
    subscribe: (onChange, onMissed) => store.listen(channel, onChange, onMissed),
    close: () => store.close(),
  };
}
