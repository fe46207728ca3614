import { appendFileSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "chai";
import type { Hex } from "viem";
import type { BudgetStack } from "../../../../testkit/buyer/budgetStack.ts";
import { CALL_PRICE, startBudgetStack } from "../../../../testkit/buyer/budgetStack.ts";
import { callTool, connectInMemory, connectStdio } from "../../../../testkit/buyer/connectBuyer.ts";
import { substituteMcpServer } from "../../../../testkit/buyer/connectPluginServer.ts";
import type { Endpoint } from "../../src/plugins/endpoint.ts";
import { renderPlugins } from "../../src/plugins/renderPlugins.ts";
import { writePluginTree } from "../../src/plugins/writePluginTree.ts";

const BUDGET = (2n * CALL_PRICE).toString();
const bin = new URL("../../bin/service-buyer-mcp.ts", import.meta.url).pathname;

/**
 * The buyer's budgets live in a spend ledger on disk. Without the fix it fails open: deleting or corrupting the file
 * resets every budget (a torn or unparseable line is skipped, a negative amount adds room), each generated plugin
 * keeps its own ledger (`CLAUDE_PLUGIN_DATA`), and two servers of one key each count only their own payments in
 * flight. An agent that can touch files, or install a second plugin, spends the key's budget as often as it likes.
 */
describe("attack: resetting or splitting the spend ledger spends past the buyer's budgets", function () {
  this.timeout(300_000);
  let s: BudgetStack;
  let resourceId: Hex;
  const work = mkdtempSync(join(tmpdir(), "buyer-ledger-attack-"));

  before(async function () {
    s = await startBudgetStack();
    resourceId = (await s.resource("forward")).resourceId;
  });

  after(async function () {
    await s?.close();
    rmSync(work, { recursive: true, force: true });
  });

  /** A funded buyer, its ledger folder, and a server of it that has spent its whole two-call budget. */
  async function spentBuyer(name: string) {
    const buyer = await s.buyer();
    const dataDir = join(work, name);
    const settings = s.settings(buyer.key, dataDir, { SPEND_HOURLY_BUDGET: BUDGET });
    const { client, close } = await connectInMemory(settings);
    for (let n = 0; n < 2; n++) {
      const paid = await callTool(client, "call_resource", { resourceId, body: { n } });
      expect(paid.isError, JSON.stringify(paid.data)).to.equal(false);
    }
    await close();
    return { buyer, dataDir, settings };
  }

  async function callOnce(settings: Record<string, string>) {
    const { client, close } = await connectInMemory(settings);
    try {
      return await callTool(client, "call_resource", { resourceId, body: { again: true } });
    } finally {
      await close();
    }
  }

  it("deleting the ledger does not reset the budget: the last day's debits are rebuilt from the chain", async function () {
    const { buyer, dataDir, settings } = await spentBuyer("deleted");
    rmSync(dataDir, { recursive: true, force: true });
    const refused = await callOnce(settings);
    expect(refused.error).to.include({ code: "spend_refused", rule: "SPEND_HOURLY_BUDGET", remaining: "0" });
    expect(await s.debits(buyer.address)).to.have.length(2);
  });

  it("a corrupt ledger refuses to sign and says how to fix it; a negative amount never makes room", async function () {
    const { buyer, dataDir, settings } = await spentBuyer("corrupt");
    const [file] = readdirSync(dataDir).filter((name) => name.endsWith(".jsonl"));
    if (!file) throw new Error("no ledger file was written");
    const ledger = join(dataDir, file);
    const negative = {
      at: Date.now(),
      buyer: buyer.address,
      escrow: s.chain.addresses.escrow,
      resourceId,
      idemKey: `0x${"ee".repeat(32)}`,
      amount: `-${BUDGET}`,
      transaction: `0x${"ff".repeat(32)}`,
    };
    appendFileSync(ledger, `${JSON.stringify(negative)}\n`);
    const refused = await callOnce(settings);
    expect(refused.error?.code).to.equal("ledger_unreadable");
    expect(refused.error?.message).to.include(ledger).and.to.include("mv");
    expect(await s.debits(buyer.address)).to.have.length(2);

    renameSync(ledger, `${ledger}.bad`);
    const rebuilt = await callOnce(settings);
    expect(rebuilt.error).to.include({ code: "spend_refused", remaining: "0" });
  });

  it("every generated plugin of one key keeps one ledger: a second plugin cannot spend the budget again", async function () {
    const buyer = await s.buyer();
    const out = join(work, "plugins");
    const endpoint: Endpoint = {
      resourceId,
      slug: "echo",
      category: "tools",
      price: { base: "1000", perKB: "200" },
      reputation: undefined,
      health: 100,
      marketplaceUrl: "http://127.0.0.1:9",
      cardUrl: "",
      creatorWords: undefined,
    };
    writePluginTree(
      out,
      renderPlugins({
        endpoints: [{ name: "service-echo", endpoint }],
        base: true,
        marketplaceUrl: "http://127.0.0.1:9",
        launch: { kind: "local", entry: join(out, "service-buyer-mcp.js") },
        version: "0.0.0",
        outDir: out,
      }),
    );
    const values = {
      buyer_private_key: buyer.key,
      rpc_url: s.chain.rpcUrl,
      escrow_address: s.chain.addresses.escrow,
      facilitator_url: s.stack.facilitator.url,
      spend_hourly_budget: BUDGET,
    };
    const user = { HOME: join(work, "home"), XDG_DATA_HOME: join(work, "xdg"), BUYER_ALLOW_PRIVATE_NETWORK: "on" };
    const launch = (plugin: string) => {
      const data = join(work, `plugin-data-${plugin}`);
      mkdirSync(data, { recursive: true });
      return connectInMemory({ ...user, ...substituteMcpServer(join(out, "plugins", plugin), data, values).env });
    };
    const endpointPlugin = await launch("service-echo");
    for (let n = 0; n < 2; n++) {
      const paid = await callTool(endpointPlugin.client, "call_resource", { body: { n } });
      expect(paid.isError, JSON.stringify(paid.data)).to.equal(false);
    }
    await endpointPlugin.close();
    const basePlugin = await launch("service-buyer");
    const refused = await callTool(basePlugin.client, "call_resource", { resourceId, body: {} });
    await basePlugin.close();
    expect(refused.error).to.include({ code: "spend_refused", remaining: "0" });
    expect(await s.debits(buyer.address)).to.have.length(2);
  });

  it("two server processes of one key racing for the last room: only one signs", async function () {
    const buyer = await s.buyer();
    const env = s.settings(buyer.key, join(work, "race"), { SPEND_HOURLY_BUDGET: CALL_PRICE.toString() });
    const servers = await Promise.all([
      connectStdio(process.execPath, [bin], env),
      connectStdio(process.execPath, [bin], env),
    ]);
    try {
      const outcomes = await Promise.all(
        servers.map((server, n) => callTool(server.client, "call_resource", { resourceId, body: { n } })),
      );
      expect(outcomes.filter((o) => !o.isError)).to.have.length(1);
      expect(outcomes.find((o) => o.isError)?.error).to.include({ code: "spend_refused", remaining: "0" });
      expect(await s.debits(buyer.address)).to.deep.equal([CALL_PRICE]);
    } finally {
      for (const server of servers) await server.close();
    }
  });
});
