import { existsSync, readFileSync, renameSync } from "node:fs";

/**
 * The PostgreSQL major version of the PGlite that Ponder runs on: the project's own `@electric-sql/pglite`, which
 * package.json's `overrides` gives Ponder in place of the 0.2 (PostgreSQL 16) it pins. A data directory holds it in
 * `PG_VERSION`; a test holds this to the installed PGlite.
 */
export const PGLITE_PG_MAJOR = "18";

/**
 * Moves aside a PGlite data directory written by another PostgreSQL major version, which this PGlite cannot open
 * (Ponder would stop at start-up), so that the indexer starts on an empty directory and re-indexes from the chain.
 * Returns where the old directory now is, or null when `dir` is absent, empty or of this version.
 * @example const kept = setAsideIncompatible(".stack/data/ponder"); if (kept) log(`re-indexing; old data in ${kept}`)
 */
export function setAsideIncompatible(dir: string, now = Date.now()): string | null {
  const versionFile = `${dir}/PG_VERSION`;
  if (!existsSync(versionFile)) return null;
  const version = readFileSync(versionFile, "utf8").trim();
  if (version === PGLITE_PG_MAJOR) return null;
  const aside = `${dir}.pg${version.replace(/[^0-9.]/g, "")}-${now}`;
  renameSync(dir, aside);
  return aside;
}
