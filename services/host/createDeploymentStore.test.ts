import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "chai";
import type { Deployment } from "./createDeploymentStore.ts";
import { createDeploymentStore } from "./createDeploymentStore.ts";

const KEY = Buffer.alloc(32, 7);

const deployment = (slug: string, source: string) =>
  ({
    slug,
    creator: "0x0000000000000000000000000000000000000001",
    resourceId: "0x01",
    source,
  }) as unknown as Deployment;

describe("createDeploymentStore: sealed rows (embedded store)", function () {
  let dir: string;
  const refused: string[] = [];
  const open = (key = KEY) =>
    createDeploymentStore({ dataDir: dir, schema: "host", sealKey: key, onRefused: (slug) => refused.push(slug) });

  before(async function () {
    dir = await mkdtemp(join(tmpdir(), "deployment-store-"));
  });

  after(async function () {
    await rm(dir, { recursive: true, force: true });
  });

  it("serves what it wrote; a row changed behind its back is left out, told once; a redeploy over it is refused", async function () {
    const store = await open();
    try {
      await store.write("a", () => deployment("a", "A"));
      await store.write("b", () => deployment("b", "B"));
      expect((await store.list()).map((s) => s.deployment.source)).to.deep.equal(["A", "B"]);
      const [row] = await store.store.query<{ record: string }>("SELECT record FROM deployment WHERE slug = 'b'");
      const replaced = JSON.stringify({ ...JSON.parse(row?.record ?? "{}"), source: "EVIL" });
      await store.store.query("UPDATE deployment SET record = $1 WHERE slug = 'b'", [replaced]);
      expect((await store.list()).map((s) => s.deployment.slug)).to.deep.equal(["a"]);
      expect(await store.get("b")).to.equal(undefined);
      expect(refused).to.deep.equal(["b"]);
      const again = await store.write("b", () => deployment("b", "B2"));
      expect(again).to.deep.include({ written: undefined, refused: true });
      expect(await store.remove("b")).to.have.property("slug", "b");
      expect((await store.write("b", () => deployment("b", "B3"))).written?.deployment.source).to.equal("B3");
    } finally {
      await store.close();
    }
  });

  it("seals the rows an embedded store held before seals, as they stand; a wrong key serves nothing", async function () {
    const store = await open();
    await store.store.query("UPDATE deployment SET seal = NULL");
    await store.close();
    const reopened = await open();
    try {
      expect((await reopened.list()).map((s) => s.deployment.slug)).to.deep.equal(["a", "b"]);
    } finally {
      await reopened.close();
    }
    const wrong = await open(Buffer.alloc(32, 8));
    try {
      expect(await wrong.list()).to.deep.equal([]);
    } finally {
      await wrong.close();
    }
  });
});
