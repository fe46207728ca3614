import type { Server } from "node:http";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { expect } from "chai";
import type { ConnectedBuyer } from "../../../../../testkit/buyer/connectBuyer.ts";
import { callTool, connectInMemory } from "../../../../../testkit/buyer/connectBuyer.ts";
import { freePort } from "../../../../../testkit/freePort.ts";

type Listed = { name: string; inputSchema: { properties?: Record<string, unknown>; additionalProperties?: unknown } };

/** search_resources through the official client, against a marketplace on loopback that records what it is asked. */
describe("search_resources", function () {
  let marketplace: Server;
  let marketplaceUrl: string;
  const asked: string[] = [];
  let buyer: ConnectedBuyer | undefined;
  const connect = async (url = marketplaceUrl) => {
    buyer = await connectInMemory({ RPC_URL: "http://127.0.0.1:1", MARKETPLACE_URL: url });
    return buyer.client;
  };

  before(async function () {
    marketplace = createServer((req, res) => {
      asked.push(req.url ?? "");
      res.setHeader("content-type", "application/json");
      if ((new URL(req.url ?? "", "http://x").searchParams.get("q") ?? "").length > 256) {
        res.statusCode = 400;
        // As the marketplace words it (services/marketplace/catalog/resourcesQuery.ts).
        res.end(
          JSON.stringify({ error: { code: "invalid_request", message: "✖ must be at most 256 characters\n  → at q" } }),
        );
        return;
      }
      res.setHeader("x-total-count", "0");
      res.end("[]");
    });
    await new Promise<void>((resolve) => marketplace.listen(0, "127.0.0.1", resolve));
    marketplaceUrl = `http://127.0.0.1:${(marketplace.address() as AddressInfo).port}`;
  });

  beforeEach(() => {
    asked.length = 0;
  });

  afterEach(async function () {
    await buyer?.close();
    buyer = undefined;
  });

  after(() => marketplace?.close());

  it("searches by meaning: q is listed in its input schema and sent as the marketplace's text search", async function () {
    const client = await connect();
    const { tools } = await client.listTools();
    const listed = (tools as Listed[]).find((t) => t.name === "search_resources");
    expect(listed?.inputSchema.properties).to.have.property("q");
    const found = await callTool(client, "search_resources", { q: "palindrome check", active: true });
    expect(found.isError, JSON.stringify(found.data)).to.equal(false);
    expect(asked).to.deep.equal(["/resources?q=palindrome+check&active=true"]);
  });

  it("a q the marketplace refuses is invalid_request, its message naming the bound and q", async function () {
    const client = await connect();
    const refused = await callTool(client, "search_resources", { q: "a".repeat(300) });
    expect(refused.error?.code).to.equal("invalid_request");
    expect(refused.error?.message).to.equal("GET /resources: ✖ must be at most 256 characters → at q");
  });

  it("refuses an argument it does not know, naming it, and asks the marketplace nothing", async function () {
    const client = await connect();
    const { tools } = await client.listTools();
    for (const tool of tools as Listed[])
      expect(tool.inputSchema.additionalProperties, `${tool.name}'s input schema`).to.equal(false);
    const refused = await callTool(client, "search_resources", { query: "echo" });
    expect(refused.isError).to.equal(true);
    expect(refused.error?.message)
      .to.match(/Input validation error/)
      .and.to.include('"query"');
    expect(asked).to.deep.equal([]);
  });

  it("a MARKETPLACE_URL holding a password: the error names the marketplace without it", async function () {
    const closed = `127.0.0.1:${await freePort()}`;
    const client = await connect(`http://bob:mkPW99@${closed}/`);
    const failed = await callTool(client, "search_resources", { q: "echo" });
    expect(failed.error?.code).to.equal("marketplace_unavailable");
    expect(failed.error?.message).to.equal(
      `marketplace at http://${closed}/resources cannot be reached (ECONNREFUSED)`,
    );
  });
});
