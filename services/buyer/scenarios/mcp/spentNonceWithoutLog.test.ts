import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "chai";
import type { BudgetStack } from "../../../../testkit/buyer/budgetStack.ts";
import { startBudgetStack } from "../../../../testkit/buyer/budgetStack.ts";
import type { ConnectedBuyer } from "../../../../testkit/buyer/connectBuyer.ts";
import { callTool, connectInMemory } from "../../../../testkit/buyer/connectBuyer.ts";
import { serveLaggingLogsRpc } from "../../../../testkit/chain/laggingLogsRpc.ts";

/**
 * A payment whose nonce the escrow spent while no log the buyer can read shows its debit (a provider dropping logs).
 * Its own stack: the test moves the chain's clock a day on, and a payment signed by the wall clock then would be
 * expired on chain.
 */
describe("attack: a provider hides a debit's log for good", function () {
  this.timeout(300_000);
  let s: BudgetStack;
  const dataDir = mkdtempSync(join(tmpdir(), "buyer-spent-unseen-"));
  const open: ConnectedBuyer[] = [];

  before(async function () {
    s = await startBudgetStack();
  });

  after(async function () {
    for (const connected of open) await connected.close().catch(() => {});
    await s?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  async function connect(key: `0x${string}`, extra: Record<string, string>) {
    const connected = await connectInMemory(s.settings(key, dataDir, extra));
    open.push(connected);
    return connected.client;
  }

  it("a day past its window the payment is paid for at most its cap, and no longer held against the budgets", async function () {
    // Before, its hold stayed held against the budgets for good (get_balance's `held`, every budget's room), and each
    // sync read the logs from its signing to the head again, a day of blocks more each day.
    const lagging = await serveLaggingLogsRpc(s.chain.connection.provider, { logs: 0 });
    try {
      const { resourceId } = await s.resource();
      const buyer = await s.buyer();
      const client = await connect(buyer.key, { RPC_URL: lagging.url });
      await callTool(client, "list_payments");
      lagging.lag.logs = 1_000_000;
      const paid = await callTool(client, "call_resource", { resourceId, body: { n: 1 } });
      expect(paid.isError, JSON.stringify(paid.data)).to.equal(false);
      const provider = s.chain.connection.provider;
      await provider.request({ method: "evm_increaseTime", params: [25 * 3_600] });
      await provider.request({ method: "evm_mine", params: [] });
      // Without the facilitator's receipt (not reachable), only the escrow's spent nonce shows the payment.
      const alone = await connect(buyer.key, {
        RPC_URL: lagging.url,
        FACILITATOR_URL: "http://127.0.0.1:9",
        SPEND_DAILY_BUDGET: "1000000",
      });
      const balance = await callTool(alone, "get_balance");
      expect(JSON.stringify(balance.data), "nothing held").to.match(/"held":\{"base":"0"/);
      const recovered = await callTool(alone, "recover_result", { idemKey: paid.data.idemKey });
      expect(recovered.data).to.include({ outcome: "paid", resourceId });
      expect(recovered.data).not.to.have.any.keys("amount", "transaction", "debitedAt");
      expect(recovered.data.message).to.match(/for at most its cap of 1200 base units \(0.0012 USDC\)/);
      const listed = await callTool(alone, "list_payments");
      expect((listed.data.payments as Record<string, unknown>[])[0]).to.include({
        idemKey: paid.data.idemKey,
        status: "paid",
      });
    } finally {
      await lagging.close();
    }
  });
});
