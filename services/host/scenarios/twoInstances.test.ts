import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "chai";
import { privateKeyToAccount } from "viem/accounts";
import { devKey, ROLE } from "../../../testkit/chain/localChain.ts";
import { getJson, postJson } from "../../../testkit/facilitator/startFacilitator.ts";
import type { GateStack } from "../../../testkit/gate/gateStack.ts";
import { startGateStack } from "../../../testkit/gate/gateStack.ts";
import { bearer, payHosted, registerSample, sampleBody, startTestHost } from "../../../testkit/host/testHost.ts";
import type { TestSchema } from "../../../testkit/postgres/testPostgres.ts";
import { testSchema } from "../../../testkit/postgres/testPostgres.ts";
import { until } from "../../../testkit/until.ts";
import type { Host } from "../createHost.ts";

/** The bound: a change made through one instance is served or refused by the others within 1 s. */
const PROPAGATION_MS = 1_000;

describe("host instances sharing one PostgreSQL database", function () {
  let stack: GateStack;
  let dirs: string[];
  let hosts: Host[];
  let db: TestSchema;

  before(async function () {
    db = await testSchema("host_test");
    stack = await startGateStack();
    dirs = await Promise.all([0, 1].map(() => mkdtemp(join(tmpdir(), "host-pg-"))));
    // Resync only hourly: what the second instance sees within the bound comes from the store's notifications.
    const env = (dir: string) => ({
      DATA_DIR: dir,
      DATABASE_URL: db.url,
      DATABASE_SCHEMA: db.schema,
      DEPLOYMENT_RESYNC_MS: "3600000",
    });
    hosts = await Promise.all(dirs.map((dir) => startTestHost(stack, env(dir))));
    await registerSample(stack, "echo", "shared-echo");
  });

  after(async function () {
    await Promise.all((hosts ?? []).map((host) => host.stop()));
    await stack?.close();
    await Promise.all((dirs ?? []).map((dir) => rm(dir, { recursive: true, force: true })));
    await db?.drop();
  });

  const [first, second] = [() => hosts[0] as Host, () => hosts[1] as Host];
  const cardStatus = async (host: Host, slug: string) =>
    (await getJson(`${host.url}/r/${slug}/.well-known/agent-card.json`)).status;

  it("a deployment made through one instance is served, and paid for, through the other within 1 s", async function () {
    const deployed = await postJson(
      `${first().url}/deployments`,
      sampleBody(stack, "echo", { slug: "shared-echo" }),
      bearer,
    );
    expect(deployed.status, JSON.stringify(deployed.body)).to.equal(201);
    await until(
      async () => ((await cardStatus(second(), "shared-echo")) === 200 ? true : undefined),
      PROPAGATION_MS,
      "the second instance serving the deployment",
      20,
    );
    const answer = await payHosted(stack, second().url, "shared-echo", { through: "the second instance" });
    expect(answer.status, answer.text).to.equal(200);
    expect(answer.body).to.deep.equal({ echo: { through: "the second instance" } });
  });

  it("an agent id set through one instance is on the card the other serves within 1 s", async function () {
    const set = await postJson(`${first().url}/deployments/shared-echo/identity`, { agentId: "41" }, bearer);
    expect(set.status, JSON.stringify(set.body)).to.equal(200);
    await until(
      async () => {
        const card = (await getJson(`${second().url}/r/shared-echo/.well-known/agent-card.json`)).body;
        return card.identity.agentId === "41" ? true : undefined;
      },
      PROPAGATION_MS,
      "the agent id on the second instance's card",
      20,
    );
  });

  it("refuses the slug to another creator through either instance (409), whichever instance holds it", async function () {
    const other = privateKeyToAccount(devKey(ROLE.other)).address;
    const body = sampleBody(stack, "echo", { slug: "shared-echo", creator: other });
    for (const host of hosts) {
      const answer = await postJson(`${host.url}/deployments`, body, bearer);
      expect(answer.status, JSON.stringify(answer.body)).to.equal(409);
      expect(answer.body.error.code).to.equal("slug_taken");
    }
  });

  it("a redeploy through the second instance replaces the handler on the first within 1 s", async function () {
    const source = `export default { async fetch(request) { return Response.json({ echo: { v2: await request.json() } }) } }`;
    const answer = await postJson(
      `${second().url}/deployments`,
      sampleBody(stack, "echo", { slug: "shared-echo", source }),
      bearer,
    );
    expect(answer.status, JSON.stringify(answer.body)).to.equal(200);
    expect(answer.body.agentId).to.equal("41");
    await until(
      () => (first().endpoints.get("shared-echo")?.deployment.source === source ? true : undefined),
      PROPAGATION_MS,
      "the first instance holding the new handler",
      20,
    );
    const paid = await payHosted(stack, first().url, "shared-echo", { a: 1 });
    expect(paid.body).to.deep.equal({ echo: { v2: { a: 1 } } });
  });

  it("a removal made through one instance is refused (404) by the other within 1 s", async function () {
    const removed = await fetch(`${second().url}/deployments/shared-echo`, { method: "DELETE", headers: bearer });
    expect(removed.status).to.equal(200);
    await until(
      async () => ((await cardStatus(first(), "shared-echo")) === 404 ? true : undefined),
      PROPAGATION_MS,
      "the first instance refusing the removed deployment",
      20,
    );
    const call = await postJson(`${first().url}/r/shared-echo/call`, { a: 1 });
    expect(call.status).to.equal(404);
    expect((await getJson(`${first().url}/deployments`, bearer)).body).to.deep.equal([]);
  });

  it("an instance started later serves what the others deployed", async function () {
    const deployed = await postJson(`${first().url}/deployments`, sampleBody(stack, "echo", { slug: "later" }), bearer);
    expect(deployed.status).to.equal(201);
    const dir = await mkdtemp(join(tmpdir(), "host-pg-"));
    dirs.push(dir);
    const third = await startTestHost(stack, { DATA_DIR: dir, DATABASE_URL: db.url, DATABASE_SCHEMA: db.schema });
    hosts.push(third);
    expect((await getJson(`${third.url}/deployments`, bearer)).body.map((d: { slug: string }) => d.slug)).to.deep.equal(
      ["later"],
    );
    expect(await cardStatus(third, "later")).to.equal(200);
  });
});
