import { expect } from "chai";
import { createPublicClient, http } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { buyerChain } from "../../services/buyer/src/sdk/buyerChain.ts";
import { payForCall } from "../../services/buyer/src/sdk/payForCall.ts";
import { verifyDebit } from "../../services/buyer/src/sdk/verifyDebit.ts";
import { parseDebits } from "../../services/protocol/parseDebits.ts";
import { sleep } from "../../testkit/sleep.ts";
import { accepts, isLoopbackListen, listenAddresses, outsideAddress } from "../../testkit/stack/listenAddresses.ts";
import { groupProcesses } from "../../testkit/stack/processNiceness.ts";
import { STACK_START_TIMEOUT_MS } from "../../testkit/stack/runStack.ts";
import type { SharedStack } from "../../testkit/stack/sharedStack.ts";
import { SHARED_STACK_NICENESS, sharedStack } from "../../testkit/stack/sharedStack.ts";

/**
 * `npm start` as a user runs it, in its own process group so that nothing it starts can outlive the test (the stack
 * test/stack/oneStack.test.ts shares between its suites; this one runs first, on the stack as it came up).
 */
describe("npm start, end to end", function () {
  this.timeout(600_000);
  let running: SharedStack;

  before(async function () {
    this.timeout(STACK_START_TIMEOUT_MS + 60_000);
    running = await sharedStack();
  });

  it("comes up with the samples listed, pays echo, and its receipt and revenue match the chain", async function () {
    const { stack } = running;
    expect(stack.resources.map((r) => r.slug)).to.include("echo");
    const listed = (await (await fetch(`${stack.marketplaceUrl}/resources`)).json()) as { slug: string }[];
    expect(listed.map((r) => r.slug)).to.include.members(["echo", "text-stats", "digest", "json-check"]);

    const echo = stack.resources.find((r) => r.slug === "echo")!;
    const chain = buyerChain({ rpcUrl: stack.rpcUrl, escrow: stack.contracts.escrow, allowPrivateAddresses: true });
    const result = await payForCall({
      chain,
      account: privateKeyToAccount(stack.buyers[0]!.privateKey),
      callUrl: `${echo.resourceUrl}/call`,
      body: { hello: "stack" },
    });
    expect(result.body).to.deep.equal({ echo: { hello: "stack" } });

    // The stack settles committed by default: the answer came before the debit was mined, and names its settlement.
    expect(result.receipt.status).to.equal("committed");
    expect(result.receipt.settlementId).to.match(/^0x[0-9a-f]{64}$/);
    const { transaction } = await verifyDebit(chain, result.receipt);
    const client = createPublicClient({ transport: http(stack.rpcUrl) });
    const receipt = await client.getTransactionReceipt({ hash: transaction });
    expect(receipt.status).to.equal("success");
    const [debited] = parseDebits(receipt.logs, chain.escrow).filter((d) => d.nonce === result.idemKey);
    expect(debited!.amount.toString()).to.equal(result.receipt.amount);
    expect((debited!.amount - debited!.treasuryAmount).toString()).to.equal(result.receipt.creatorAmount);
    expect(debited!.resourceId).to.equal(echo.resourceId);

    let revenue: { calls: number; gross: string; creator: string; treasury: string } | undefined;
    const deadline = Date.now() + 20_000;
    while (Date.now() < deadline) {
      const r = await fetch(`${stack.facilitatorUrl}/revenue/${echo.resourceId}`);
      revenue = r.ok ? ((await r.json()) as typeof revenue) : undefined;
      if (revenue && revenue.calls >= 1) break;
      await sleep(250);
    }
    expect(revenue).to.include({
      calls: 1,
      gross: result.receipt.amount,
      creator: result.receipt.creatorAmount,
      treasury: result.receipt.treasuryAmount,
    });
  });

  it("listens on loopback only: the chain (unlocked development accounts) and every service refuse the network", async function () {
    // Before the fix the embedded chain bound 0.0.0.0 (Hardhat's default inside a container): anyone on the network
    // could send transactions from its unlocked, well-known accounts (the deployer holds every admin role).
    for (const [name, port] of Object.entries(running.ports)) {
      const addresses = listenAddresses(Number(port));
      expect(addresses, `${name} ${port} listens`).to.not.be.empty;
      for (const address of addresses)
        expect(isLoopbackListen(address), `${name} ${port} on ${address}`).to.equal(true);
    }
    const outside = outsideAddress();
    if (outside)
      expect(await accepts(outside, Number(running.ports.CHAIN_PORT)), `chain on ${outside}`).to.equal(false);
  });

  it("runs its background parts (chain, indexer, marketplace, studio) BACKGROUND_NICENESS nicer than the paid path", async function () {
    const parts = groupProcesses(running.child.pid as number);
    const niceness = (entry: string) => {
      const part = parts.find((p) => p.command.includes(entry));
      expect(part, `a process running ${entry}`).to.not.equal(undefined);
      return part?.niceness;
    };
    const paid = niceness("services/host/main.ts");
    expect(niceness("services/facilitator/main.ts")).to.equal(paid);
    const workerd = parts.filter((p) => p.command.includes("workerd serve"));
    expect(workerd, "the host's sandboxes").to.not.be.empty;
    for (const sandbox of workerd) expect(sandbox.niceness).to.equal(paid);
    const background = Math.min(19, (paid as number) + SHARED_STACK_NICENESS);
    for (const entry of ["services/chain/main.ts", "ponder", "services/marketplace/main.ts", "services/studio/main.ts"])
      expect(niceness(entry), entry).to.equal(background);
  });
});
