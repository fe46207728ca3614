import { expect } from "chai";
import type { MarketplaceStack } from "../../../testkit/marketplace/marketplaceStack.ts";
import { startMarketplaceStack } from "../../../testkit/marketplace/marketplaceStack.ts";
import type { TestSchema } from "../../../testkit/postgres/testPostgres.ts";
import { testSchema } from "../../../testkit/postgres/testPostgres.ts";

describe("marketplace on PostgreSQL (store in a schema of its own, Ponder in a database of its own)", function () {
  let db: TestSchema;
  let stack: MarketplaceStack;

  before(async function () {
    db = await testSchema("marketplace_test");
    stack = await startMarketplaceStack({
      indexer: { postgres: true },
      env: { DATABASE_URL: db.url, DATABASE_SCHEMA: db.schema },
    });
  });

  after(async function () {
    await stack?.stop();
    await db?.drop();
  });

  it("keeps its tables in its own schema", async function () {
    expect(stack.marketplace.ctx.store.kind).to.equal("postgres");
    const tables = await stack.marketplace.ctx.store.query<{ table_name: string }>(
      "SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY table_name",
      [db.schema],
    );
    expect(tables.map((t) => t.table_name)).to.deep.equal(["agent_registration", "listing", "migration", "probe"]);
  });

  it("publishes, lists and serves the card; a refused publish lists nothing", async function () {
    const ok = await stack.publish({ slug: "pg-echo" });
    expect(ok.response.status, JSON.stringify(ok.response.body)).to.equal(201);
    const refused = await stack.publish({ slug: "pg-nobond", bondValue: null });
    expect(refused.response.status).to.equal(422);
    expect(refused.response.body.error.code).to.equal("bond_failed");
    await stack.settle();
    const index = await stack.get("/resources");
    expect(index.body.map((r: { slug: string }) => r.slug)).to.deep.equal(["pg-echo"]);
    expect((await stack.get(`/${ok.resourceId}/.well-known/agent-card.json`)).status).to.equal(200);
    expect((await stack.get(`/${refused.resourceId}/.well-known/agent-card.json`)).status).to.equal(404);
    expect((await stack.get("/ready")).status).to.equal(200);
  });

  it("answers 500 for a corrupted stored card", async function () {
    const [row] = await stack.marketplace.ctx.store.query<{ resource_id: string }>("SELECT resource_id FROM listing");
    const id = row!.resource_id;
    await stack.marketplace.ctx.store.query(
      'UPDATE listing SET card_text = \'{"protocolVersion":"0.3.0"}\' WHERE resource_id = $1',
      [id],
    );
    const { status, body } = await stack.get(`/${id}/.well-known/agent-card.json`);
    expect(status).to.equal(500);
    expect(body.error.code).to.equal("card_invalid");
  });
});
