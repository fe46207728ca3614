import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "chai";
import { createPublicClient, http, parseEventLogs } from "viem";
import type { Address, Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { payForCall } from "../services/buyer/payForCall.ts";
import { buyerChain } from "../services/buyer/pinPaymentTerms.ts";
import { abiOf } from "../services/protocol/artifacts.ts";
import { assertPortFree } from "../services/stack/ports.ts";
import { freePort } from "./support/startIndexer.ts";

type StackFile = {
  rpcUrl: string;
  marketplaceUrl: string;
  facilitatorUrl: string;
  contracts: { escrow: Address };
  buyers: { address: Address; privateKey: Hex }[];
  resources: { slug: string; resourceId: Hex; resourceUrl: string }[];
};

/** `npm start` as a user runs it, in its own process group so that nothing it starts can outlive the test. */
describe("npm start, end to end", function () {
  this.timeout(600_000);
  let child: ChildProcess;
  let output = "";
  const stackDir = mkdtempSync(join(tmpdir(), "stack-"));
  const ports: Record<string, number> = {};

  before(async function () {
    for (const name of ["CHAIN_PORT", "FACILITATOR_PORT", "HOST_PORT", "MARKETPLACE_PORT", "INDEXER_PORT"]) ports[name] = await freePort();
    child = spawn("npm", ["start"], {
      cwd: new URL("..", import.meta.url).pathname,
      env: { ...process.env, STACK_DIR: stackDir, ...Object.fromEntries(Object.entries(ports).map(([k, v]) => [k, String(v)])) },
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    child.stdout!.on("data", (c: Buffer) => (output += c.toString()));
    child.stderr!.on("data", (c: Buffer) => (output += c.toString()));
    const deadline = Date.now() + 300_000;
    while (!existsSync(join(stackDir, "stack.json"))) {
      if (child.exitCode !== null) throw new Error(`npm start exited with ${child.exitCode}:\n${output}`);
      if (Date.now() > deadline) throw new Error(`no stack.json after 300 s:\n${output}`);
      await new Promise((r) => setTimeout(r, 500));
    }
  });

  after(async function () {
    if (child?.pid && child.exitCode === null) {
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch {}
    }
    rmSync(stackDir, { recursive: true, force: true });
  });

  it("comes up with the samples listed, pays echo, and its receipt and revenue match the chain", async function () {
    const stack = JSON.parse(readFileSync(join(stackDir, "stack.json"), "utf8")) as StackFile;
    expect(stack.resources.map((r) => r.slug)).to.include("echo");
    const listed = (await (await fetch(`${stack.marketplaceUrl}/resources`)).json()) as { slug: string }[];
    expect(listed.map((r) => r.slug)).to.include.members(["echo", "text-stats", "digest", "json-check"]);

    const echo = stack.resources.find((r) => r.slug === "echo")!;
    const result = await payForCall({
      chain: buyerChain({ rpcUrl: stack.rpcUrl, escrow: stack.contracts.escrow }),
      account: privateKeyToAccount(stack.buyers[0]!.privateKey),
      callUrl: `${echo.resourceUrl}/call`,
      body: { hello: "stack" },
    });
    expect(result.body).to.deep.equal({ echo: { hello: "stack" } });

    const client = createPublicClient({ transport: http(stack.rpcUrl) });
    const receipt = await client.getTransactionReceipt({ hash: result.receipt.transaction });
    expect(receipt.status).to.equal("success");
    const [debited] = parseEventLogs({ abi: abiOf("PaymentEscrow"), logs: receipt.logs, eventName: "Debited" }).filter(
      (log) => log.args.nonce === result.idemKey,
    );
    expect(debited!.args.amount.toString()).to.equal(result.receipt.amount);
    expect(debited!.args.creatorAmount.toString()).to.equal(result.receipt.creatorAmount);
    expect(debited!.args.resourceId).to.equal(echo.resourceId);

    let revenue: { calls: number; gross: string; creator: string; treasury: string } | undefined;
    const deadline = Date.now() + 20_000;
    while (Date.now() < deadline) {
      const r = await fetch(`${stack.facilitatorUrl}/revenue/${echo.resourceId}`);
      revenue = r.ok ? ((await r.json()) as typeof revenue) : undefined;
      if (revenue && revenue.calls >= 1) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    expect(revenue).to.include({ calls: 1, gross: result.receipt.amount, creator: result.receipt.creatorAmount, treasury: result.receipt.treasuryAmount });
  });

  it("stops every part on SIGTERM and leaves no process or port behind", async function () {
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    process.kill(child.pid!, "SIGTERM");
    await exited;
    const deadline = Date.now() + 20_000;
    let alive = true;
    while (alive && Date.now() < deadline) {
      try {
        process.kill(-child.pid!, 0);
        await new Promise((r) => setTimeout(r, 200));
      } catch {
        alive = false;
      }
    }
    expect(alive, "a process of the stack outlived it").to.equal(false);
    for (const [name, port] of Object.entries(ports)) await assertPortFree(port, name);
  });
});

describe("npm start in external mode", function () {
  this.timeout(120_000);

  it("refuses the well-known development keys for a chain that is not the embedded one", async function () {
    const ports = Object.fromEntries(
      await Promise.all(["FACILITATOR_PORT", "HOST_PORT", "MARKETPLACE_PORT", "INDEXER_PORT"].map(async (name) => [name, String(await freePort())])),
    );
    const developmentKey = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";
    const child = spawn(process.execPath, ["services/stack/start.ts"], {
      cwd: new URL("..", import.meta.url).pathname,
      env: {
        ...process.env,
        ...ports,
        STACK_DIR: mkdtempSync(join(tmpdir(), "stack-external-")),
        RPC_URL: "http://127.0.0.1:9",
        DEPLOYER_KEY: developmentKey,
        RELAYER_KEYS: developmentKey,
        PUBLISHER_KEY: developmentKey,
        TREASURY_ADDRESS: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
        CALLER_AUTH_SECRET: "x".repeat(40),
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stdout!.on("data", (c: Buffer) => (out += c.toString()));
    child.stderr!.on("data", (c: Buffer) => (out += c.toString()));
    const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
    expect(code).to.equal(1);
    expect(out).to.match(/well-known development key/);
  });
});
