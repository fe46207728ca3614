import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { expect } from "chai";
import type { ConnectedBuyer, ToolOutcome } from "../../../testkit/buyer/connectBuyer.ts";
import { callTool, connectStdio } from "../../../testkit/buyer/connectBuyer.ts";
import { readmeBlocks } from "../../../testkit/readmeBlocks.ts";
import type { SharedStack } from "../../../testkit/stack/sharedStack.ts";
import { sharedStack } from "../../../testkit/stack/sharedStack.ts";

const run = promisify(execFile);
const root = new URL("../../../", import.meta.url).pathname;
const readme = join(root, "services/buyer/README.md");
const blocks = readmeBlocks(readme, "Walkthrough: from nothing to a paid call and a withdrawal");
type ToolCall = { name: string; arguments: Record<string, unknown> };

/**
 * The buyer README's walkthrough, block by block as written, on `npm start` (the stack test/stack/oneStack.test.ts
 * shares between its suites; this one runs last of them, since the walkthrough moves the chain's clock a day): the
 * shell blocks run in `sh` from a folder laid out as a checkout (`.stack` and `services` linked), `claude mcp add`
 * captured to launch the server it configures over stdio, every tool call sent through the SDK's client. And
 * `npm run demo -- <slug>` for every sample of the same stack.
 */
describe("on one npm start stack", function () {
  this.timeout(600_000);
  const checkout = mkdtempSync(join(tmpdir(), "buyer-walkthrough-"));
  const home = mkdtempSync(join(tmpdir(), "buyer-walkthrough-home-"));
  let running: SharedStack | undefined;
  let stackDir = "";

  before(async function () {
    const [start] = blocks;
    expect(start?.text.trim(), "the walkthrough starts with npm start").to.equal("npm start");
    running = await sharedStack();
    stackDir = running.stackDir;
    symlinkSync(stackDir, join(checkout, ".stack"));
    symlinkSync(join(root, "services"), join(checkout, "services"));
  });

  after(function () {
    for (const dir of [checkout, home]) rmSync(dir, { recursive: true, force: true });
  });

  /** Runs a README shell block in `sh` from the checkout; `claude` is a stand-in printing its arguments NUL-separated. */
  async function shell(text: string): Promise<string> {
    const claude = `claude() { for a in "$@"; do printf '%s\\0' "$a"; done; }\n`;
    const { stdout } = await run("sh", ["-ec", claude + text], { cwd: checkout, env: process.env });
    return stdout;
  }

  describe("npm run demo -- <slug>", function () {
    it("pays every sample of stack.json and prints its quote, receipt and revenue", async function () {
      const slugs = running?.stack.resources.map((r) => r.slug) ?? [];
      expect(slugs).to.include("echo");
      for (const slug of slugs) {
        const { stdout } = await run("npm", ["run", "--silent", "demo", "--", slug], {
          cwd: root,
          env: { ...process.env, STACK_DIR: stackDir },
        });
        for (const title of [`index record of ${slug}`, "402 quote", "response", "receipt", `revenue of ${slug}`])
          expect(stdout, `${slug}: ${title}`).to.include(`== ${title}`);
        const receipt = JSON.parse(
          stdout.split("== receipt (X-PAYMENT-RESPONSE, decoded)\n")[1]?.split("\n==")[0] ?? "",
        );
        expect(receipt.success, slug).to.equal(true);
        expect(receipt.payTo, slug).to.equal(running?.stack.resources.find((r) => r.slug === slug)?.resourceId);
        expect(receipt.payer, slug).to.equal(running?.stack.buyers[0]?.address);
      }
    });
  });

  describe("the buyer README walkthrough", function () {
    it("runs every block of the README as written: search, quote, pay, balance, history, withdraw across the delay", async function () {
      const [, configure, ...steps] = blocks;
      expect(configure?.lang).to.equal("sh");
      const argv = (await shell(configure?.text ?? "")).split("\0").slice(0, -1);
      expect(argv.slice(0, 2)).to.deep.equal(["mcp", "add"]);
      const dash = argv.indexOf("--");
      const env: Record<string, string> = {};
      for (let i = 3; i < dash; i += 2) {
        expect(argv[i]).to.equal("-e");
        const [key, ...value] = (argv[i + 1] ?? "").split("=");
        env[key ?? ""] = value.join("=");
      }
      const stack = running!.stack;
      expect(env).to.deep.equal({
        BUYER_PRIVATE_KEY: stack.buyers[0]?.privateKey,
        RPC_URL: stack.rpcUrl,
        ESCROW_ADDRESS: stack.contracts.escrow,
        MARKETPLACE_URL: stack.marketplaceUrl,
        FACILITATOR_URL: stack.facilitatorUrl,
        BUYER_ALLOW_PRIVATE_NETWORK: "on",
      });
      const [command, ...args] = argv.slice(dash + 1);
      const server: ConnectedBuyer = await connectStdio(command ?? "", args, { ...env, HOME: home }, checkout);
      const names = steps.map((step) => (step.lang === "json" ? (JSON.parse(step.text) as ToolCall).name : step.lang));
      expect(names).to.deep.equal([
        "search_resources",
        "quote",
        "add_tools",
        "echo",
        "get_balance",
        "list_payments",
        "request_withdrawal",
        "withdraw",
        "sh",
        "withdraw",
      ]);
      const echo = stack.resources.find((r) => r.slug === "echo")?.resourceId;
      const seen: Record<string, ToolOutcome> = {};
      let resourceId = "";
      try {
        for (const step of steps) {
          if (step.lang === "sh") {
            await shell(step.text);
            continue;
          }
          const call = JSON.parse(step.text.replaceAll("<resourceId>", resourceId)) as ToolCall;
          const answer = await callTool(server.client, call.name, call.arguments);
          const key = seen[call.name] ? `${call.name} again` : call.name;
          seen[key] = answer;
          if (key !== "withdraw") expect(answer.isError, `${key}: ${JSON.stringify(answer.data)}`).to.equal(false);
          if (key === "search_resources") {
            const rows = answer.data.resources as { slug: string; resourceId: string }[];
            resourceId = rows.find((row) => row.slug === "echo")?.resourceId ?? "";
            expect(resourceId).to.equal(echo);
            const unrelated = rows.filter((row) => ["text-stats", "digest", "json-check"].includes(row.slug));
            expect(unrelated, "q searches the cards: samples that never say echo are not found").to.deep.equal([]);
          }
        }
      } finally {
        await server.close();
      }
      const base = (value: unknown) => BigInt((value as { base: string }).base);
      expect(seen.add_tools!.data.added).to.deep.equal([{ resourceId: echo, tool: "echo" }]);
      expect(seen.echo!.data).to.deep.equal({ echo: { hello: "agent" } });
      const paid = seen.echo!.meta ?? {};
      expect(paid.settlement).to.equal("committed");
      const amount = base(paid.amount);
      const cap = base((seen.quote!.data.price as { cap: unknown }).cap);
      expect(amount > 0n && amount <= cap, `paid ${amount} of a cap of ${cap}`).to.equal(true);
      const balance = seen.get_balance!.data;
      expect(balance.address).to.equal(stack.buyers[0]?.address);
      expect(base(balance.escrow) > 1_000_000n, "escrow above the 1 USDC to withdraw").to.equal(true);
      const payments = seen.list_payments!.data.payments as { idemKey: string; status: string; settlement?: string }[];
      const listed = payments.find((p) => p.idemKey === paid.idemKey);
      // Committed, then mined within a block or two: whichever the history caught, never anything else.
      expect(listed?.status === "paid" || listed?.settlement === "committed", JSON.stringify(listed)).to.equal(true);
      const requested = seen.request_withdrawal!.data;
      expect(requested.message).to.match(/call withdraw then/);
      const locked = seen.withdraw!;
      expect(locked.error?.code).to.equal("withdrawal_locked");
      expect(locked.error?.message).to.include(requested.unlocksAt as string);
      const withdrawn = seen["withdraw again"]!;
      expect(withdrawn.isError, JSON.stringify(withdrawn.data)).to.equal(false);
      expect(withdrawn.data.withdrawn).to.deep.equal({ base: "1000000", usdc: "1 USDC" });
    });
  });
});
