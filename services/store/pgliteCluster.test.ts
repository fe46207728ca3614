import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, watch, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { expect } from "chai";
import {
  freshClusterDump,
  holdsCluster,
  preparePgliteCluster,
  seedPgliteDir,
  templateClusterDir,
} from "./pgliteCluster.ts";

describe("seedPgliteDir", function () {
  let root: string;
  let template: string;
  before(function () {
    root = mkdtempSync(join(tmpdir(), "pglite-cluster-"));
    template = join(root, "cache", "pglite-cluster", "test");
  });
  after(function () {
    rmSync(root, { recursive: true, force: true });
  });

  it("makes the template once and copies it into each new directory, which PGlite then opens as its own", async function () {
    const first = join(root, "stack", "data", "facilitator");
    // What a crashed maker or copier left behind is removed; a live one's is kept.
    const dead = await new Promise<number>((resolve) => {
      const child = spawn(process.execPath, ["-e", ""]);
      child.once("exit", () => resolve(child.pid as number));
    });
    const left = [`${template}.making-${dead}-1`, `${first}.seeding-${dead}-1`];
    const kept = [`${template}.making-${process.pid}-1`, `${first}.seeding-${process.pid}-1`];
    for (const dir of [...left, ...kept]) mkdirSync(dir, { recursive: true });
    await seedPgliteDir(first, template);
    expect(holdsCluster(template), "template made").to.equal(true);
    expect(holdsCluster(first)).to.equal(true);
    for (const dir of left) expect(existsSync(dir), `a crash's ${dir}`).to.equal(false);
    for (const dir of kept) expect(existsSync(dir), `a live process's ${dir}`).to.equal(true);
    for (const dir of kept) rmSync(dir, { recursive: true });
    const made = statSync(join(template, "PG_VERSION")).mtimeMs;

    const second = join(root, "stack", "data", "host");
    await seedPgliteDir(second, template);
    expect(statSync(join(template, "PG_VERSION")).mtimeMs, "template reused").to.equal(made);

    const db = await PGlite.create(second);
    await db.exec("CREATE TABLE kept (n int); INSERT INTO kept VALUES (7)");
    await db.close();
    expect(readdirSync(template), "the template is never opened").not.to.include("postmaster.pid");
    expect(readdirSync(join(root, "stack", "data")).sort()).to.deep.equal(["facilitator", "host"]);

    await seedPgliteDir(second, template);
    const reopened = await PGlite.create(second);
    expect((await reopened.query<{ n: number }>("SELECT n FROM kept")).rows).to.deep.equal([{ n: 7 }]);
    await reopened.close();
  });

  it("leaves a directory holding other files as it is", async function () {
    const other = join(root, "other");
    mkdirSync(other);
    writeFileSync(join(other, "notes.txt"), "mine");
    await seedPgliteDir(other, template);
    expect(readdirSync(other)).to.deep.equal(["notes.txt"]);
    expect(readdirSync(root).filter((name) => name.includes(".seeding-"))).to.deep.equal([]);
  });

  it("without a place for the template, makes the directory and leaves initdb to PGlite", async function () {
    const blocked = join(root, "a-file");
    writeFileSync(blocked, "");
    const dir = join(root, "plain");
    await seedPgliteDir(dir, join(blocked, "template"));
    expect(readdirSync(dir)).to.deep.equal([]);
    const db = await PGlite.create(dir);
    expect((await db.query("SELECT 1 AS one")).rows).to.deep.equal([{ one: 1 }]);
    await db.close();
  });

  it("processes started side by side on a new installation make the template once; the others wait and copy it", async function () {
    const template = join(root, "herd", "cache", "pglite-cluster", "test");
    mkdirSync(join(root, "herd", "cache", "pglite-cluster"), { recursive: true });
    const makers = new Set<string>();
    const watcher = watch(join(root, "herd", "cache", "pglite-cluster"), (_, name) => {
      if (name?.includes(".making-")) makers.add(name);
    });
    const seedIn = (name: string) =>
      new Promise<number | null>((resolve) => {
        const child = spawn(
          process.execPath,
          [
            "--input-type=module",
            "-e",
            `import { seedPgliteDir } from ${JSON.stringify(new URL("./pgliteCluster.ts", import.meta.url).href)};
             await seedPgliteDir(process.argv[1], process.argv[2]);`,
            join(root, "herd", "data", name),
            template,
          ],
          { stdio: "inherit" },
        );
        child.once("exit", resolve);
      });
    const codes = await Promise.all(["facilitator", "host", "marketplace", "indexer"].map(seedIn));
    watcher.close();
    expect(codes).to.deep.equal([0, 0, 0, 0]);
    expect(makers.size, [...makers].join(", ")).to.equal(1);
    for (const name of ["facilitator", "host", "marketplace", "indexer"])
      expect(holdsCluster(join(root, "herd", "data", name)), name).to.equal(true);
  });

  it("keeps the template with the installed PGlite's version, in node_modules/.cache", function () {
    expect(templateClusterDir()).to.match(/\/node_modules\/\.cache\/pglite-cluster\/\d+\.\d+\.\d+$/);
  });
});

describe("freshClusterDump", function () {
  let root: string;
  before(function () {
    root = mkdtempSync(join(tmpdir(), "pglite-dump-"));
  });
  after(function () {
    rmSync(root, { recursive: true, force: true });
  });

  it("dumps a fresh cluster once, keeps it beside the template, and each in-memory database loaded from it is its own", async function () {
    const path = join(root, "cache", "test.tar");
    const made = await freshClusterDump(path);
    expect(statSync(path).size, "kept on disk").to.equal(made.size);
    const keptAt = statSync(path).mtimeMs;
    expect(readdirSync(join(root, "cache")), "no half file left").to.deep.equal(["test.tar"]);

    const again = await freshClusterDump(path);
    expect(statSync(path).mtimeMs, "read, not made again").to.equal(keptAt);
    const [a, b] = await Promise.all([
      PGlite.create("memory://", { loadDataDir: made }),
      PGlite.create("memory://", { loadDataDir: again }),
    ]);
    await a.exec("CREATE TABLE only_in_a (n int)");
    const tables = (db: PGlite) =>
      db.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_tables WHERE tablename = 'only_in_a'");
    expect((await tables(a)).rows).to.deep.equal([{ n: 1 }]);
    expect((await tables(b)).rows).to.deep.equal([{ n: 0 }]);
    await Promise.all([a.close(), b.close()]);
  });

  it("still returns a dump where it cannot keep one", async function () {
    const blocked = join(root, "a-file");
    writeFileSync(blocked, "");
    const dump = await freshClusterDump(join(blocked, "test.tar"));
    const db = await PGlite.create("memory://", { loadDataDir: dump });
    expect((await db.query("SELECT 1 AS one")).rows).to.deep.equal([{ one: 1 }]);
    await db.close();
  });
});

describe("preparePgliteCluster", function () {
  let root: string;
  before(function () {
    root = mkdtempSync(join(tmpdir(), "pglite-prepare-"));
  });
  after(function () {
    rmSync(root, { recursive: true, force: true });
  });

  it("makes the template and the dump where missing, and leaves both as they are once there", async function () {
    const template = join(root, "cache", "17.0.0");
    const dump = `${template}.tar`;
    await preparePgliteCluster(template, dump);
    expect(holdsCluster(template), "the template").to.equal(true);
    expect(statSync(dump).size, "the dump").to.be.above(0);
    const stamps = () => [statSync(join(template, "PG_VERSION")).mtimeMs, statSync(dump).mtimeMs];
    const before = stamps();
    await preparePgliteCluster(template, dump);
    expect(stamps(), "neither made again").to.deep.equal(before);
    expect(readdirSync(join(root, "cache")).sort(), "no half folder or file left").to.deep.equal([
      "17.0.0",
      "17.0.0.tar",
    ]);
  });
});
