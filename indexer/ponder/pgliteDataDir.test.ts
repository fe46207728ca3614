import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { expect } from "chai";
import { PGLITE_PG_MAJOR, setAsideIncompatible } from "./pgliteDataDir.ts";

describe("Ponder's PGlite data directory (pgliteDataDir.ts)", () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), "pglite-dir-"));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it("is the project's PGlite that Ponder loads (package.json's overrides)", () => {
    const fromProject = createRequire(import.meta.url);
    // The module of Ponder's that creates its PGlite.
    const fromPonder = createRequire(new URL("../../node_modules/ponder/dist/esm/utils/pglite.js", import.meta.url));
    expect(fromPonder.resolve("@electric-sql/pglite")).to.equal(fromProject.resolve("@electric-sql/pglite"));
  });

  it("names the major version the installed PGlite writes, which is what Ponder runs on", async () => {
    const dir = join(root, "fresh");
    const db = await PGlite.create(dir);
    await db.close();
    expect(readFileSync(join(dir, "PG_VERSION"), "utf8").trim()).to.equal(PGLITE_PG_MAJOR);
    expect(setAsideIncompatible(dir)).to.equal(null);
    expect(existsSync(join(dir, "PG_VERSION"))).to.equal(true);
  });

  it("moves aside a directory written by PostgreSQL 16 (Ponder's own PGlite 0.2), keeping its contents", () => {
    const dir = join(root, "ponder");
    mkdirSync(dir);
    writeFileSync(join(dir, "PG_VERSION"), "16\n");
    writeFileSync(join(dir, "postgresql.conf"), "old");
    const aside = setAsideIncompatible(dir, 1234);
    expect(aside).to.equal(`${dir}.pg16-1234`);
    expect(existsSync(dir)).to.equal(false);
    expect(readFileSync(join(`${dir}.pg16-1234`, "postgresql.conf"), "utf8")).to.equal("old");
  });

  it("leaves an absent or empty directory to PGlite", () => {
    expect(setAsideIncompatible(join(root, "absent"))).to.equal(null);
    mkdirSync(join(root, "empty"));
    expect(setAsideIncompatible(join(root, "empty"))).to.equal(null);
    expect(existsSync(join(root, "empty"))).to.equal(true);
  });
});
