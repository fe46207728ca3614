import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "chai";
import pg from "pg";
import { getJson, postJson } from "../../../testkit/facilitator/startFacilitator.ts";
import type { GateStack } from "../../../testkit/gate/gateStack.ts";
import { startGateStack } from "../../../testkit/gate/gateStack.ts";
import { bearer, payHosted, registerSample, sampleBody, startTestHost } from "../../../testkit/host/testHost.ts";
import type { TestSchema } from "../../../testkit/postgres/testPostgres.ts";
import { testSchema } from "../../../testkit/postgres/testPostgres.ts";
import { until } from "../../../testkit/until.ts";
import type { Host } from "../createHost.ts";

/** What the attacker wants served in the victim's place: an answer of its own choosing, to every paying buyer. */
const REPLACEMENT = `export default { async fetch() { return Response.json({ echo: { replaced: 'by the schema writer' } }) } }`;

type Row = { slug: string; record: string; seal: string | null };

/**
 * Attack: anyone who can write the host's schema (a database role shared with another service, a leaked connection
 * string, a compromised migration) replaces an endpoint's source directly in the `deployment` table, and every host
 * instance, following the store's notifications, loads and serves it: buyers pay for the attacker's code under the
 * victim's listing. Each row now carries the seal of its record (HMAC under a key the database never holds), written
 * only by the deploy API; a row that does not match it is not served, on a running instance or a fresh one.
 */
describe("attack: a schema writer replaces an endpoint's source in the host's database", function () {
  let stack: GateStack;
  let dataDir: string;
  let host: Host;
  let pgSchema: TestSchema;
  let schema: string;
  let db: pg.Client;
  const env = (dir: string) => ({ DATA_DIR: dir, DATABASE_URL: pgSchema.url, DATABASE_SCHEMA: schema });
  const cardStatus = async (target: Host, slug: string) =>
    (await getJson(`${target.url}/r/${slug}/.well-known/agent-card.json`)).status;
  const rowOf = async (slug: string) =>
    (await db.query<Row>(`SELECT slug, record, seal FROM ${schema}.deployment WHERE slug = $1`, [slug])).rows[0] as Row;
  /** What the schema writer does: a row written directly, then the notification every instance follows. */
  const writeRow = async (slug: string, record: string, seal: string | null) => {
    await db.query(
      `INSERT INTO ${schema}.deployment (slug, creator, resource_id, record, seal) VALUES ($1, '', '', $2, $3)
       ON CONFLICT (slug) DO UPDATE SET record = $2, seal = $3, version = nextval('${schema}.deployment_version')`,
      [slug, record, seal],
    );
    await db.query("SELECT pg_notify($1, $2)", [`${schema}_deployment`, slug]);
  };
  const deploy = async (slug: string) => {
    const deployed = await postJson(`${host.url}/deployments`, sampleBody(stack, "echo", { slug }), bearer);
    expect(deployed.status, JSON.stringify(deployed.body)).to.be.oneOf([200, 201]);
  };

  before(async function () {
    pgSchema = await testSchema("host_seal");
    schema = pgSchema.schema;
    stack = await startGateStack();
    dataDir = await mkdtemp(join(tmpdir(), "host-seal-"));
    host = await startTestHost(stack, env(dataDir));
    // The schema writer: a connection of its own, as any role with write access to the host's schema would have.
    db = new pg.Client({ connectionString: pgSchema.url });
    await db.connect();
    for (const slug of ["victim", "other"]) {
      await registerSample(stack, "echo", slug);
      await deploy(slug);
    }
    expect((await payHosted(stack, host.url, "victim", { hello: 1 })).body).to.deep.equal({ echo: { hello: 1 } });
  });

  after(async function () {
    await host?.stop();
    await stack?.close();
    await db?.end();
    await pgSchema?.drop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it("a source replaced in the row is refused: the running instance stops serving the endpoint, no buyer reaches the replacement", async function () {
    const row = await rowOf("victim");
    const replaced = JSON.stringify({ ...JSON.parse(row.record), source: REPLACEMENT });
    await writeRow("victim", replaced, row.seal);
    await until(async () => ((await cardStatus(host, "victim")) === 404 ? true : undefined), 10_000, "the refusal");
    const answer = await payHosted(stack, host.url, "other", { still: "served" });
    expect(answer.body).to.deep.equal({ echo: { still: "served" } });
    const paid = await fetch(`${host.url}/r/victim/call`, { method: "POST", body: "{}" });
    expect(paid.status).to.equal(404);
  });

  it("a fresh instance on the same database does not serve it either, nor a row written with no seal or another slug's", async function () {
    const other = await rowOf("other");
    await writeRow("planted", JSON.stringify({ ...JSON.parse(other.record), slug: "planted" }), null);
    await writeRow("copied", other.record, other.seal);
    const dir = await mkdtemp(join(tmpdir(), "host-seal-fresh-"));
    const fresh = await startTestHost(stack, env(dir));
    try {
      const served = (await getJson(`${fresh.url}/deployments`, bearer)).body.map((d: { slug: string }) => d.slug);
      expect(served).to.deep.equal(["other"]);
      for (const slug of ["victim", "planted", "copied"]) expect(await cardStatus(fresh, slug), slug).to.equal(404);
      expect(await cardStatus(fresh, "other")).to.equal(200);
    } finally {
      await fresh.stop();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("its creator cannot redeploy over a refused row until an operator removes it; then the deploy API's own write is served", async function () {
    const refused = await postJson(`${host.url}/deployments`, sampleBody(stack, "echo", { slug: "victim" }), bearer);
    expect(refused.status).to.equal(409);
    expect(refused.body.error.message).to.contain("does not match its seal");
    const removed = await fetch(`${host.url}/deployments/victim`, { method: "DELETE", headers: bearer });
    expect(removed.status).to.equal(200);
    await deploy("victim");
    const answer = await payHosted(stack, host.url, "victim", { hello: 2 });
    expect(answer.status, answer.text).to.equal(200);
    expect(answer.body).to.deep.equal({ echo: { hello: 2 } });
  });
});
