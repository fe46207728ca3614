import { openStore } from "../../store/openStore.ts";
import type { Store } from "../../store/store.ts";
import { MIGRATIONS } from "./migrations.ts";

export type { Sql, Store } from "../../store/store.ts";

export type CreateStoreParameters = {
  /** postgres://… ; when absent, PGlite runs embedded in `dataDir`. */
  databaseUrl?: string | undefined;
  /** PGlite data directory; `memory://` keeps it in memory (tests). */
  dataDir?: string | undefined;
  /** PostgreSQL schema holding the facilitator's tables (default `facilitator`). */
  schema?: string | undefined;
};

/**
 * Opens the facilitator's store (services/store) and applies its migrations.
 * @example const store = await createStore({ databaseUrl: process.env.DATABASE_URL, dataDir: ".data/facilitator" })
 */
export function createStore({ databaseUrl, dataDir, schema = "facilitator" }: CreateStoreParameters): Promise<Store> {
  return openStore({ databaseUrl, dataDir, schema, migrations: MIGRATIONS });
}
