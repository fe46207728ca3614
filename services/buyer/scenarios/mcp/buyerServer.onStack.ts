import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "chai";
import type { Hex } from "viem";
import { createPublicClient, http } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { BUYER_TOOLS, callTool, connectInMemory, connectStdio } from "../../../../testkit/buyer/connectBuyer.ts";
import { countVerifies } from "../../../../testkit/facilitator/countVerifies.ts";
import type { FakeResource } from "../../../../testkit/marketplace/fakeResource.ts";
import { startFakeResource } from "../../../../testkit/marketplace/fakeResource.ts";
import { sharedStack } from "../../../../testkit/stack/sharedStack.ts";
import { until } from "../../../../testkit/until.ts";
import echoSpec from "../../../host/samples/echo.json" with { type: "json" };
import { parseDebits } from "../../../protocol/parseDebits.ts";
import { finalizeCard } from "../../../protocol/schemas/card.ts";
import type { StackFile } from "../../../stack/stackFile.ts";
import { registerDemoResource } from "../../src/demo/deployDemoContracts.ts";
import { formatAmount } from "../../src/sdk/formatAmount.ts";

const root = new URL("../../../../", import.meta.url).pathname;

/**
 * The buyer MCP server against `npm start` (the stack test/stack/oneStack.test.ts shares between its suites):
 * the official client in memory and over stdio, paying echo for real and refusing what it must refuse before any
 * signature exists (the facilitator's verify counter does not move).
 */
describe("buyer MCP server on the npm start stack", function () {
  this.timeout(600_000);
  const dataDir = mkdtempSync(join(tmpdir(), "buyer-ledger-"));
  let stack: StackFile;
  let echo: Hex;
  let live: Record<
    | "BUYER_PRIVATE_KEY"
    | "RPC_URL"
    | "ESCROW_ADDRESS"
    | "MARKETPLACE_URL"
    | "FACILITATOR_URL"
    | "SERVICE_BUYER_DATA_DIR"
    | "BUYER_ALLOW_PRIVATE_NETWORK",
    string
  >;
  const fakes: FakeResource[] = [];

  before(async function () {
    ({ stack } = await sharedStack());
    const found = stack.resources.find((r) => r.slug === "echo");
    if (!found) throw new Error("the stack has no echo");
    echo = found.resourceId;
    live = {
      BUYER_PRIVATE_KEY: stack.buyers[0]?.privateKey ?? "",
      RPC_URL: stack.rpcUrl,
      ESCROW_ADDRESS: stack.contracts.escrow,
      MARKETPLACE_URL: stack.marketplaceUrl,
      FACILITATOR_URL: stack.facilitatorUrl,
      SERVICE_BUYER_DATA_DIR: dataDir,
      // npm start serves everything on 127.0.0.1.
      BUYER_ALLOW_PRIVATE_NETWORK: "on",
    };
  });

  after(async function () {
    for (const fake of fakes) await fake.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const verifies = () => countVerifies(stack.facilitatorUrl);

  it("lists twelve tools with input and output schemas, and says which spend money or change anything", async function () {
    const { client, close } = await connectInMemory(live);
    const { tools } = await client.listTools();
    await close();
    expect(tools.map((t) => t.name).sort()).to.deep.equal(["add_tools", ...BUYER_TOOLS].sort());
    for (const tool of tools) {
      expect(tool.inputSchema.type, tool.name).to.equal("object");
      expect(tool.outputSchema?.type, tool.name).to.equal("object");
      expect(tool.annotations?.readOnlyHint, tool.name).to.equal(
        !["add_tools", "call_resource", "deposit", "request_withdrawal", "withdraw", "set_spend_limit"].includes(
          tool.name,
        ),
      );
    }
    expect(tools.find((t) => t.name === "call_resource")?.annotations?.destructiveHint).to.equal(true);
  });

  it("a scoped server lists only its resource, defaults to it, and says so in every tool", async function () {
    const { client, close } = await connectInMemory({ ...live, SERVICE_RESOURCE_IDS: echo });
    try {
      const { tools } = await client.listTools();
      const unscoped = ["get_balance", "deposit", "request_withdrawal", "withdraw", "set_spend_limit"];
      for (const tool of tools.filter((t) => !unscoped.includes(t.name)))
        expect(tool.description, tool.name).to.include(echo);
      expect(tools.find((t) => t.name === "call_resource")?.inputSchema.required ?? []).not.to.include("resourceId");
      const search = await callTool(client, "search_resources");
      const rows = search.data.resources as { resourceId: string }[];
      expect(rows.map((r) => r.resourceId)).to.deep.equal([echo]);
      const card = await callTool(client, "get_card");
      expect((card.data.pinned as { resourceId: string }).resourceId).to.equal(echo);
    } finally {
      await close();
    }
  });

  it("searches, reads echo's pinned card and quotes it without signing anything", async function () {
    const { client, close } = await connectInMemory(live);
    const before = await verifies();
    try {
      const search = await callTool(client, "search_resources", { active: true });
      expect(search.isError).to.equal(false);
      const slugs = (search.data.resources as { slug: string }[]).map((r) => r.slug);
      expect(slugs).to.include.members(["echo", "text-stats"]);
      const echoRow = (search.data.resources as { slug: string; usdc: Record<string, string> }[]).find(
        (r) => r.slug === "echo",
      );
      expect(echoRow?.usdc.cap).to.equal("0.05 USDC");
      const card = await callTool(client, "get_card", { resourceId: echo });
      expect(card.data.mode).to.equal("live");
      expect(card.data.pinned).to.deep.include({ escrow: stack.contracts.escrow, cap: "50000" });
      expect((card.data.card as { x402: { payTo: string } }).x402.payTo).to.equal(echo);
      const quote = await callTool(client, "quote", { resourceId: echo, body: { hello: "quote" } });
      expect(quote.data.signed).to.equal(false);
      expect(quote.data.pinned).to.deep.include({ resourceId: echo, cap: "50000", asset: stack.contracts.token });
      expect(await verifies()).to.equal(before);
    } finally {
      await close();
    }
  });

  it("pays for echo: the body, a receipt that matches its debit on chain, and recover_result", async function () {
    const { client, close } = await connectInMemory(live);
    try {
      const paid = await callTool(client, "call_resource", { resourceId: echo, body: { hello: "mcp" } });
      expect(paid.isError, JSON.stringify(paid.data)).to.equal(false);
      expect(paid.data.body).to.deep.equal({ echo: { hello: "mcp" } });
      const receipt = paid.data.receipt as { amount: string; payer: string; idemKey: Hex };
      expect(receipt.payer).to.equal(privateKeyToAccount(live.BUYER_PRIVATE_KEY as Hex).address);
      expect(paid.data.amount).to.deep.equal(formatAmount(receipt.amount));
      // The stack settles committed: the answer is final before its debit is mined; recover_result names the
      // transaction once the chain shows it (the embedded stack's relayer sends it in the next batch).
      expect(paid.data).to.include({ settlement: "committed" });
      const recovered = await until(async () => {
        const answer = await callTool(client, "recover_result", { idemKey: paid.data.idemKey });
        return answer.data.outcome === "paid" ? answer : undefined;
      });
      expect(recovered.isError, JSON.stringify(recovered.data)).to.equal(false);
      expect(recovered.data.body).to.deep.equal({ echo: { hello: "mcp" } });
      const chain = createPublicClient({ transport: http(stack.rpcUrl) });
      const tx = await chain.getTransactionReceipt({ hash: recovered.data.transaction as Hex });
      // The relayer calls the escrow itself: the transaction's `to`.
      const [debit] = parseDebits(tx.logs, tx.to!).filter((d) => d.nonce === paid.data.idemKey);
      expect(debit?.amount.toString()).to.equal(receipt.amount);
      expect(debit?.resourceId).to.equal(echo);
      const balance = await callTool(client, "get_balance");
      expect(balance.data.address).to.equal(receipt.payer);
      expect(JSON.stringify(balance.data)).not.to.include(live.BUYER_PRIVATE_KEY.slice(2));
    } finally {
      await close();
    }
  });

  it("a buyer scoped to one resource cannot be made to pay another: refused before any signature", async function () {
    const other = stack.resources.find((r) => r.slug === "text-stats")?.resourceId;
    const { client, close } = await connectInMemory({ ...live, SERVICE_RESOURCE_IDS: echo });
    const before = await verifies();
    try {
      const refused = await callTool(client, "call_resource", { resourceId: other, body: { text: "hi" } });
      expect(refused.error?.code).to.equal("out_of_scope");
      for (const tool of ["get_card", "quote"]) {
        const answer = await callTool(client, tool, { resourceId: other });
        expect(answer.error?.code, tool).to.equal("out_of_scope");
      }
      expect(await verifies()).to.equal(before);
    } finally {
      await close();
    }
  });

  it("the model cannot spend past the policy: over-budget and over-cap calls are refused unsigned, with the rule", async function () {
    const before = await verifies();
    const capped = await connectInMemory({ ...live, SPEND_MAX_PER_CALL: "49999" });
    const overCap = await callTool(capped.client, "call_resource", { resourceId: echo, body: {} });
    await capped.close();
    expect(overCap.error).to.include({ code: "spend_refused", rule: "SPEND_MAX_PER_CALL" });
    const allow = await connectInMemory({ ...live, SPEND_ALLOW_CREATORS: stack.contracts.token });
    const notAllowed = await callTool(allow.client, "call_resource", { resourceId: echo, body: {} });
    await allow.close();
    expect(notAllowed.error).to.include({ code: "spend_refused", rule: "SPEND_ALLOW_CREATORS" });
    expect(await verifies()).to.equal(before);
  });

  it("over stdio, the budget ledger survives a restart: the second process refuses what the first spent", async function () {
    const dir = mkdtempSync(join(tmpdir(), "buyer-restart-"));
    const env = {
      ...live,
      // A key no other suite on the shared stack pays with: the daily budget counts the key's debits made by any
      // process, and the budget here leaves room for one call only.
      BUYER_PRIVATE_KEY: stack.buyers[2]?.privateKey ?? "",
      SERVICE_BUYER_DATA_DIR: dir,
      SPEND_DAILY_BUDGET: "51000",
    };
    const launch = () => connectStdio(process.execPath, [join(root, "services/buyer/bin/service-buyer-mcp.ts")], env);
    try {
      const first = await launch();
      const paid = await callTool(first.client, "call_resource", { resourceId: echo, body: { n: 1 } });
      expect(paid.isError, JSON.stringify(paid.data)).to.equal(false);
      await first.close();
      expect(first.stderr()).not.to.include(env.BUYER_PRIVATE_KEY.slice(2));
      const remaining = (51_000n - BigInt((paid.data.amount as { base: string }).base)).toString();

      const second = await launch();
      const before = await verifies();
      const refused = await callTool(second.client, "call_resource", { resourceId: echo, body: { n: 2 } });
      const balance = await callTool(second.client, "get_balance");
      await second.close();
      expect(refused.error).to.include({ code: "spend_refused", rule: "SPEND_DAILY_BUDGET", remaining });
      expect(await verifies()).to.equal(before);
      expect((balance.data.policy as { daily: { remaining: { base: string } } }).daily.remaining.base).to.equal(
        remaining,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("bad inputs are tool errors, never a crash: unknown id, malformed arguments, missing key, dead services", async function () {
    const { client, close } = await connectInMemory(live);
    try {
      const unknown = await callTool(client, "get_card", { resourceId: `0x${"12".repeat(32)}` });
      expect(unknown.error?.code).to.equal("unknown_resource");
      const malformed = await callTool(client, "call_resource", { resourceId: "echo", body: {} });
      expect(malformed.isError).to.equal(true);
      expect(malformed.error?.message).to.match(/resource id/);
      const recovered = await callTool(client, "recover_result", { idemKey: `0x${"34".repeat(32)}` });
      expect(recovered.error?.code).to.equal("not_found");
    } finally {
      await close();
    }
    const keyless = await connectInMemory({ ...live, BUYER_PRIVATE_KEY: "0x1234" });
    const noKey = await callTool(keyless.client, "call_resource", { resourceId: echo, body: {} });
    const stillReads = await callTool(keyless.client, "get_card", { resourceId: echo });
    await keyless.close();
    expect(noKey.error?.code).to.equal("key_unavailable");
    expect(noKey.error?.message).to.include("BUYER_PRIVATE_KEY");
    expect(stillReads.isError).to.equal(false);

    const dead = await connectInMemory({
      ...live,
      MARKETPLACE_URL: "http://127.0.0.1:9",
      RPC_URL: "http://127.0.0.1:9",
    });
    const search = await callTool(dead.client, "search_resources");
    const card = await callTool(dead.client, "get_card", { resourceId: echo });
    await dead.close();
    expect(search.error?.code).to.equal("marketplace_unavailable");
    expect(card.error?.code).to.equal("rpc_unavailable");
  });

  describe("a resource whose card or quote lies", function () {
    async function rogue(slug: string, tamper: (card: Record<string, unknown>) => void, quoteCap?: string) {
      let resourceId: Hex = "0x";
      const fake = await startFakeResource((url) => ({
        card: {},
        quote: {
          cap: quoteCap ?? "50000",
          escrow: stack.contracts.escrow,
          asset: stack.contracts.token,
          payTo: resourceId,
          base: "1000",
          perKB: "200",
        },
        healthStatus: 200,
        callStatus: 402,
      }));
      fakes.push(fake);
      const creatorKey = stack.buyers[2]?.privateKey ?? "0x";
      const registered = await registerDemoResource(stack.rpcUrl, creatorKey, stack.contracts, {
        slug,
        category: "tools",
        pricing: { base: 1000n, perKB: 200n, max: 50_000n },
        cardUri: `${fake.url}/.well-known/agent-card.json`,
        card: (ids) =>
          finalizeCard(
            {
              ...echoSpec.card,
              x402: { ...echoSpec.card.x402, asset: stack.contracts.token, escrow: stack.contracts.escrow },
            } as never,
            { callUrl: `${fake.url}/call`, ...ids },
          ) as unknown as Record<string, unknown>,
      });
      resourceId = registered.resourceId;
      const card = structuredClone(registered.card);
      tamper(card);
      fake.state.card = card;
      fake.state.quote.payTo = resourceId;
      return resourceId;
    }

    it("a card that fails the strict schema is refused, and nothing is signed", async function () {
      const resourceId = await rogue(`bad-card-${Date.now()}`, (card) => {
        card.unexpected = "field";
      });
      const { client, close } = await connectInMemory(live);
      const before = await verifies();
      const card = await callTool(client, "get_card", { resourceId });
      const paid = await callTool(client, "call_resource", { resourceId, body: {} });
      await close();
      expect(card.error?.code).to.equal("invalid_card");
      expect(paid.error?.code).to.equal("invalid_card");
      expect(await verifies()).to.equal(before);
    });

    it("a quote whose cap disagrees with the chain is refused before signing", async function () {
      const resourceId = await rogue(`bad-quote-${Date.now()}`, () => {}, "5000000");
      const { client, close } = await connectInMemory(live);
      const card = await callTool(client, "get_card", { resourceId });
      const quote = await callTool(client, "quote", { resourceId, body: {} });
      const paid = await callTool(client, "call_resource", { resourceId, body: {} });
      await close();
      expect(card.isError, JSON.stringify(card.data)).to.equal(false);
      expect(quote.error?.code).to.equal("pin_failed");
      expect(quote.error?.message).to.match(/quoted cap 5000000 differs from the registered cap 50000/);
      expect(paid.error?.code).to.equal("pin_failed");
    });
  });
});
