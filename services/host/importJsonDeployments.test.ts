import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "chai";
import { getJson } from "../../testkit/facilitator/startFacilitator.ts";
import type { GateStack } from "../../testkit/gate/gateStack.ts";
import { startGateStack } from "../../testkit/gate/gateStack.ts";
import {
  bearer,
  payHosted,
  registerSample,
  sampleBody,
  startTestHost,
  testCreator,
} from "../../testkit/host/testHost.ts";
import { resourceIdOf } from "../protocol/resourceId.ts";
import type { Deployment } from "./createDeploymentStore.ts";

describe("host: deployments kept as JSON files are moved into the store on first start", function () {
  let stack: GateStack;
  let dataDir: string;

  before(async function () {
    stack = await startGateStack();
    dataDir = await mkdtemp(join(tmpdir(), "host-import-"));
  });

  after(async function () {
    await stack?.close();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it("serves each file's deployment with its agent id, keeps unreadable files, and imports nothing twice", async function () {
    const at = "2026-01-02T03:04:05.000Z";
    const deployment: Deployment = {
      ...sampleBody(stack, "echo", { slug: "from-file" }),
      resourceId: resourceIdOf(testCreator, "from-file"),
      agentId: "12",
      deployedAt: at,
      updatedAt: at,
    } as Deployment;
    await mkdir(join(dataDir, "deployments"));
    await writeFile(join(dataDir, "deployments", "from-file.json"), JSON.stringify(deployment, null, 2));
    await writeFile(join(dataDir, "deployments", "broken.json"), "{ not json");
    await registerSample(stack, "echo", "from-file");

    let host = await startTestHost(stack, { DATA_DIR: dataDir });
    try {
      const list = (await getJson(`${host.url}/deployments`, bearer)).body;
      expect(list.map((d: { slug: string; agentId: string }) => [d.slug, d.agentId])).to.deep.equal([
        ["from-file", "12"],
      ]);
      expect(existsSync(join(dataDir, "deployments"))).to.equal(false);
      const [moved] = (await readdir(dataDir)).filter((name) => name.startsWith("deployments.imported-"));
      expect(moved, "the imported directory").to.be.a("string");
      expect((await readdir(join(dataDir, moved as string))).sort()).to.deep.equal(["broken.json", "from-file.json"]);
      const answer = await payHosted(stack, host.url, "from-file", { imported: true });
      expect(answer.status, answer.text).to.equal(200);
    } finally {
      await host.stop();
    }

    host = await startTestHost(stack, { DATA_DIR: dataDir });
    try {
      const card = (await getJson(`${host.url}/r/from-file/.well-known/agent-card.json`)).body;
      expect(card.identity.agentId).to.equal("12");
      expect((await readdir(dataDir)).filter((name) => name.startsWith("deployments.imported-"))).to.have.length(1);
    } finally {
      await host.stop();
    }
  });
});
