import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "chai";
import pg from "pg";
import type { Hex } from "viem";
import { readProcessTree } from "../../services/host/readProcessTree.ts";
import { sleep } from "../../testkit/sleep.ts";
import { runStack, STACK_START_TIMEOUT_MS, stackPorts } from "../../testkit/stack/runStack.ts";

/**
 * `CHAIN_MINING=interval npm start -- --postgres`: the stack as a deployment runs it, on the test network's 500 ms
 * blocks and with every store on PostgreSQL. Set-up (deployments, the samples' listing, funding) is mined at once, as
 * with automine; from the moment the stack is ready the chain mines only on its interval, so a transaction waits for
 * the next block, as on the test network.
 */
describe("npm start -- --postgres with CHAIN_MINING=interval", function () {
  this.timeout(600_000);
  const stackDir = mkdtempSync(join(tmpdir(), "stack-interval-"));
  let ports: Record<string, string>;
  let running: Awaited<ReturnType<typeof runStack>>;

  before(async function () {
    this.timeout(STACK_START_TIMEOUT_MS + 60_000);
    // PostgreSQL never runs as root: when the tests do, it runs as another user, which must reach the stack's folder.
    chmodSync(stackDir, 0o711);
    ports = await stackPorts({ postgres: true });
    running = await runStack(
      { STACK_DIR: stackDir, ...ports, CHAIN_MINING: "interval" },
      { direct: true, args: ["--postgres"] },
    );
  });

  after(async function () {
    if (running && !(await running.stop().catch(() => false))) running.kill();
    rmSync(stackDir, { recursive: true, force: true });
  });

  const rpc = async <T>(method: string, params: unknown[] = []): Promise<T> => {
    const response = await fetch(running.stack.rpcUrl, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
    });
    return ((await response.json()) as { result: T }).result;
  };

  it("is set up with the samples listed, then mines on its interval only", async function () {
    expect(running.stack.resources.map((r) => r.slug)).to.include("echo");
    expect(await rpc<boolean>("hardhat_getAutomine")).to.equal(false);

    const before = BigInt(await rpc<Hex>("eth_blockNumber"));
    await sleep(1_200);
    const after = BigInt(await rpc<Hex>("eth_blockNumber"));
    expect(after - before >= 2n, "blocks come on the interval with no transaction sent").to.equal(true);

    const buyer = running.stack.buyers[0]?.address;
    const hash = await rpc<Hex>("eth_sendTransaction", [{ from: buyer, to: buyer, value: "0x1" }]);
    let receipt: { blockNumber: Hex } | null = null;
    for (let i = 0; i < 100 && !receipt; i++) {
      await sleep(100);
      receipt = await rpc("eth_getTransactionReceipt", [hash]);
    }
    expect(receipt, "a transaction is mined by an interval block").to.not.equal(null);
  });

  it("keeps every store on its own PostgreSQL, named in stack.json, and nothing in PGlite", async function () {
    const url = running.stack.postgresUrl;
    expect(url).to.equal(`postgres://postgres@127.0.0.1:${ports.POSTGRES_PORT}/postgres`);
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const schemas = (await client.query("SELECT schema_name FROM information_schema.schemata")).rows.map(
        (r: { schema_name: string }) => r.schema_name,
      );
      expect(schemas).to.include.members(["facilitator", "marketplace", "host", "indexer_views"]);
      const listed = await client.query("SELECT count(*)::int AS n FROM marketplace.listing");
      expect(listed.rows[0].n).to.equal(running.stack.resources.length);
    } finally {
      await client.end();
    }
    expect(existsSync(join(stackDir, "data", "facilitator")), "no PGlite store").to.equal(false);
  });

  it("stops whole when a part ends on its own, naming it (exit 1), and its PostgreSQL with the rest", async function () {
    const stack = running.child.pid!;
    const marketplace = readProcessTree(stack).find((pid) =>
      readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("services/marketplace/main.ts"),
    );
    expect(marketplace, "the marketplace's process").to.be.a("number");
    const exited = new Promise((resolve) => running.child.once("exit", resolve));
    process.kill(marketplace!, "SIGKILL");
    expect(await Promise.race([exited, sleep(120_000).then(() => "still running")])).to.equal(1);
    const log = join(stackDir, "logs", "marketplace.log");
    expect(running.output()).to.include(
      `[stack] failed: the marketplace was killed (SIGKILL) while the stack ran (its output: ${log})`,
    );
    expect(await running.stop(ports), "every process of the stack gone, every port free").to.equal(true);
  });
});
