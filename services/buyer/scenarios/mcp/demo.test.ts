import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "chai";
import { callTool, connectStdio } from "../../../../testkit/buyer/connectBuyer.ts";
import { freePort } from "../../../../testkit/freePort.ts";
import { until } from "../../../../testkit/until.ts";
import { DEMO_DEPOSIT } from "../../src/demo/startDemoSystem.ts";
import { DEMO_NOTICE } from "../../src/mcp/toolResult.ts";

const bin = new URL("../../bin/service-buyer-mcp.ts", import.meta.url).pathname;

/**
 * Demo mode with an empty environment, launched over stdio as an MCP client launches it: the whole escrow loop in
 * the server's process, on loopback, said in every answer. (A process of its own also gives the demo's EVM its own
 * EDR context: EDR allows one per process, and this test process already has Hardhat's.)
 */
describe("buyer MCP server, demo mode", function () {
  this.timeout(180_000);
  const home = mkdtempSync(join(tmpdir(), "buyer-demo-home-"));
  after(() => rmSync(home, { recursive: true, force: true }));
  /** The demo's port for this file's runs: the default one may be taken by a demo another test file started. */
  let env: Record<string, string>;
  before(async () => {
    env = { HOME: home, SERVICE_DEMO_PORT: String(await freePort()) };
  });
  /** What a buyer sees of a fresh demo, as the tools answer it, byte for byte. */
  const firstSight = async (client: Parameters<typeof callTool>[0]) => {
    const search = await callTool(client, "search_resources");
    const [echo] = (search.data.resources ?? []) as { resourceId: string }[];
    const card = await callTool(client, "get_card", { resourceId: echo?.resourceId });
    const balance = await callTool(client, "get_balance");
    return { search, card, balance, seen: JSON.stringify([search.data, card.data, balance.data]) };
  };
  /** What the first run saw, for the next run to compare with. */
  let first: string | undefined;

  it("with no settings at all, pays echo through the real contracts, facilitator and gate, and says it is the demo", async function () {
    const { client, close, stderr } = await connectStdio(process.execPath, [bin], env);
    try {
      const { search, card, balance: before, seen } = await firstSight(client);
      expect(search.data, JSON.stringify(search.data)).to.include({ mode: "demo", notice: DEMO_NOTICE });
      const [echo] = search.data.resources as { resourceId: string; slug: string; cardUrl: string }[];
      expect(echo?.slug).to.equal("echo");
      expect(new URL(echo?.cardUrl ?? "").hostname).to.equal("127.0.0.1");
      expect(new URL(echo?.cardUrl ?? "").port).to.equal(env.SERVICE_DEMO_PORT);
      expect(card.data.mode).to.equal("demo");
      first = seen;
      expect((before.data.escrow as { base: string }).base).to.equal(DEMO_DEPOSIT.toString());
      const paid = await callTool(client, "call_resource", { resourceId: echo?.resourceId, body: { hello: "demo" } });
      expect(paid.isError, JSON.stringify(paid.data)).to.equal(false);
      expect(paid.data).to.include({ mode: "demo", notice: DEMO_NOTICE });
      expect(paid.data.body).to.deep.equal({ echo: { hello: "demo" } });
      // Answered committed (final) before its debit is mined; the demo's relayer sends it at once.
      expect(paid.data).to.include({ settlement: "committed" });
      const recovered = await until(async () => {
        const answer = await callTool(client, "recover_result", { idemKey: paid.data.idemKey });
        return answer.data.outcome === "paid" ? answer : undefined;
      });
      expect(recovered.data.transaction).to.match(/^0x[0-9a-f]{64}$/);
      expect((recovered.data.receipt as { settlementId?: string }).settlementId).to.equal(
        (paid.data.receipt as { settlementId?: string }).settlementId,
      );
      const after = await callTool(client, "get_balance");
      const escrowAfter = BigInt((after.data.escrow as { base: string }).base);
      expect(escrowAfter).to.equal(DEMO_DEPOSIT - BigInt((paid.data.amount as { base: string }).base));
      const refused = await callTool(client, "get_card", { resourceId: `0x${"00".repeat(32)}` });
      expect(refused.data).to.include({ mode: "demo", notice: DEMO_NOTICE });
      expect(refused.error?.code).to.equal("unknown_resource");
      expect(stderr()).to.match(
        /service-buyer: demo started \(chain http:\/\/127\.0\.0\.1:\d+, buyer 0x[0-9a-fA-F]{40}\)/,
      );
    } finally {
      await close();
    }
  });

  it("a body holding a __proto__ key is paid for and sent as the agent gave it: echo answers the key back", async function () {
    const { client, close } = await connectStdio(process.execPath, [bin], env);
    try {
      const search = await callTool(client, "search_resources");
      const [echo] = search.data.resources as { resourceId: string }[];
      const body = JSON.parse('{"__proto__":{"a":1},"b":2}');
      const paid = await callTool(client, "call_resource", { resourceId: echo?.resourceId, body });
      expect(paid.isError, JSON.stringify(paid.data)).to.equal(false);
      expect(JSON.stringify(paid.data.body)).to.equal('{"echo":{"__proto__":{"a":1},"b":2}}');
    } finally {
      await close();
    }
  });

  it("starts the same every time: a second process answers byte for byte the same search, card and balances", async function () {
    expect(first, "the first run of the demo, which this one is compared with").to.not.equal(undefined);
    const { client, close } = await connectStdio(process.execPath, [bin], env);
    try {
      expect((await firstSight(client)).seen).to.equal(first);
    } finally {
      await close();
    }
  });

  it("an unconfigured server scoped to a resource outside the demo refuses at once, naming the settings, and starts nothing", async function () {
    const elsewhere = `0x${"ab".repeat(32)}`;
    const { client, close, stderr } = await connectStdio(process.execPath, [bin], {
      ...env,
      SERVICE_RESOURCE_IDS: elsewhere,
    });
    try {
      const card = await callTool(client, "get_card", {});
      expect(card.error?.code).to.equal("demo_unavailable");
      expect(card.error?.message).to.include(elsewhere).and.to.include("BUYER_PRIVATE_KEY");
      expect(stderr()).to.not.include("demo started");
    } finally {
      await close();
    }
  });
});
