import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "chai";
import type { Hex } from "viem";
import { createPublicClient, http } from "viem";
import { BUYER_TOOLS, TOOL_TIMEOUT_MS } from "../../../../testkit/buyer/connectBuyer.ts";
import { connectPluginServer } from "../../../../testkit/buyer/connectPluginServer.ts";
import { holdBuyerDist } from "../../../../testkit/buyer/holdBuyerDist.ts";
import type { SharedStack } from "../../../../testkit/stack/sharedStack.ts";
import { sharedStack } from "../../../../testkit/stack/sharedStack.ts";
import { parseDebits } from "../../../protocol/parseDebits.ts";
import type { Receipt } from "../../../protocol/schemas/receipt.ts";
import { buyerChain } from "../../src/sdk/buyerChain.ts";
import { verifyDebit } from "../../src/sdk/verifyDebit.ts";

const repo = new URL("../../../../", import.meta.url).pathname;
type ToolResult = { isError?: boolean; structuredContent?: Record<string, unknown>; content?: unknown };

/**
 * The generator against `npm start`: the built `service-plugins` bin reads the live index, and every generated plugin's
 * MCP server is launched from its `.mcp.json` as Claude Code launches it, scoped to its endpoint; one pays.
 */
describe("generated plugins against npm start", function () {
  this.timeout(600_000);
  const work = mkdtempSync(join(tmpdir(), "plugins-e2e-"));
  const out = join(work, "marketplace");
  let running: SharedStack;
  const closers: (() => Promise<void>)[] = [];
  let releaseDist: (() => Promise<void>) | undefined;

  before(async function () {
    // The stack never reads services/buyer/dist: it starts before this file takes the dist, so that a file waiting
    // for the dist (mocha --parallel) does not also wait out the stack's start.
    running = await sharedStack();
    releaseDist = await holdBuyerDist(this);
    execFileSync(process.execPath, ["services/buyer/build.ts"], { cwd: repo, stdio: "pipe" });
  });

  after(async function () {
    for (const close of closers) await close().catch(() => {});
    await releaseDist?.();
    rmSync(work, { recursive: true, force: true });
  });

  it("generates from the live index with the built bin, and Claude Code's validator accepts every plugin", function () {
    const { stack } = running;
    const summary = JSON.parse(
      execFileSync(
        process.execPath,
        [
          "services/buyer/dist/bin/service-plugins.js",
          "generate",
          "--marketplace-url",
          stack.marketplaceUrl,
          "--out",
          out,
          "--local",
          "--enrich",
          "--json",
        ],
        { cwd: repo, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] },
      ),
    );
    const slugs = stack.resources.map((r) => r.slug).sort();
    expect(summary.plugins.map((p: { name: string }) => p.name)).to.deep.equal([
      "service-buyer",
      ...slugs.map((s) => `service-${s}`),
    ]);
    const claude = join(repo, "node_modules/.bin/claude");
    for (const target of [out, ...readdirSync(join(out, "plugins")).map((name) => join(out, "plugins", name))])
      execFileSync(claude, ["plugin", "validate", "--strict", target], { encoding: "utf8" });
  });

  it("launches each endpoint's MCP server from its .mcp.json, scoped to that one endpoint, and pays for a call", async function () {
    const { stack } = running;
    const buyer = stack.buyers[1]!;
    const settings = {
      buyer_private_key: buyer.privateKey,
      rpc_url: stack.rpcUrl,
      escrow_address: stack.contracts.escrow,
      facilitator_url: stack.facilitatorUrl,
    };
    for (const resource of stack.resources) {
      const dir = join(out, "plugins", `service-${resource.slug}`);
      const session = await connectPluginServer(dir, mkdtempSync(join(work, "data-")), settings, {
        XDG_DATA_HOME: join(work, "xdg"),
        // npm start serves everything on 127.0.0.1: the user's own environment says so.
        BUYER_ALLOW_PRIVATE_NETWORK: "on",
      });
      closers.push(session.close);
      expect(session.server.env.SERVICE_RESOURCE_IDS).to.equal(resource.resourceId);
      const tools = (await session.client.listTools()).tools.map((t) => t.name).sort();
      // Its scope's own typed tool, named after the slug, read from its quote: the generator passes only the id.
      expect(tools, session.stderr()).to.deep.equal([...BUYER_TOOLS, resource.slug].sort());
      const found = (await session.client.callTool({ name: "search_resources", arguments: {} }, undefined, {
        timeout: TOOL_TIMEOUT_MS,
      })) as ToolResult;
      expect(found.isError, JSON.stringify(found.content)).to.not.equal(true);
      const ids = (found.structuredContent!.resources as { resourceId: string }[]).map((r) => r.resourceId);
      expect(ids, `${resource.slug} sees only itself`).to.deep.equal([resource.resourceId]);
      const other = stack.resources.find((r) => r.resourceId !== resource.resourceId)!;
      const outside = (await session.client.callTool(
        {
          name: "quote",
          arguments: { resourceId: other.resourceId, body: {} },
        },
        undefined,
        { timeout: TOOL_TIMEOUT_MS },
      )) as ToolResult;
      expect(outside.isError, `${resource.slug} quoted ${other.slug}`).to.equal(true);

      if (resource.slug !== "echo") continue;
      // Paid through its typed tool: the echo's own fields as arguments, its typed answer, the payment in _meta.
      const paid = (await session.client.callTool({ name: "echo", arguments: { via: "plugin" } }, undefined, {
        timeout: TOOL_TIMEOUT_MS,
      })) as ToolResult & { _meta?: Record<string, unknown> };
      expect(paid.isError, `${JSON.stringify(paid.content)}\n${session.stderr()}`).to.not.equal(true);
      expect(paid.structuredContent).to.deep.equal({ echo: { via: "plugin" } });
      const answer = paid._meta as {
        amount: { base: string; usdc: string };
        settlement: string;
        idemKey: `0x${string}`;
        receipt: { payer: string; payTo: string; amount: string; creatorAmount: string };
      };
      expect(answer.receipt.payTo).to.equal(resource.resourceId);
      expect(answer.receipt.payer.toLowerCase()).to.equal(buyer.address.toLowerCase());
      // Answered committed (final) before its debit is mined; the stack's relayer sends it in the next batch.
      expect(answer.settlement).to.equal("committed");
      const chain = createPublicClient({ transport: http(stack.rpcUrl) });
      const mined = await verifyDebit(
        buyerChain({ rpcUrl: stack.rpcUrl, escrow: stack.contracts.escrow as Hex }),
        answer.receipt as unknown as Receipt,
      );
      const receipt = await chain.getTransactionReceipt({ hash: mined.transaction });
      expect(receipt.status).to.equal("success");
      // The relayer calls the escrow itself: the transaction's `to`.
      const [debited] = parseDebits(receipt.logs, receipt.to!).filter((d) => d.nonce === answer.idemKey);
      expect(debited, "no debit logged for the payment's nonce").to.not.equal(undefined);
      expect(debited!.resourceId).to.equal(resource.resourceId);
      expect(debited!.buyer.toLowerCase()).to.equal(buyer.address.toLowerCase());
      expect(debited!.amount.toString()).to.equal(answer.amount.base).and.to.equal(answer.receipt.amount);
    }
  });

  it("the base plugin answers in demo mode with no configuration at all", async function () {
    const session = await connectPluginServer(join(out, "plugins/service-buyer"), mkdtempSync(join(work, "data-")));
    closers.push(session.close);
    expect(session.server.env).to.not.have.property("SERVICE_RESOURCE_IDS");
    expect(session.server.env.BUYER_PRIVATE_KEY).to.equal("");
    const tools = (await session.client.listTools()).tools.map((t) => t.name).sort();
    expect(tools).to.deep.equal(["add_tools", ...BUYER_TOOLS].sort());
    const found = (await session.client.callTool({ name: "search_resources", arguments: {} }, undefined, {
      timeout: TOOL_TIMEOUT_MS,
    })) as ToolResult;
    expect(found.isError, `${JSON.stringify(found.content)}\n${session.stderr()}`).to.not.equal(true);
    expect(found.structuredContent?.mode).to.equal("demo");
    const resources = found.structuredContent?.resources as { resourceId: string }[];
    expect(resources.length).to.be.greaterThan(0);
  });
});
