import { expect } from "chai";
import type { BudgetStack } from "../../../../testkit/buyer/budgetStack.ts";
import { budgetStackBuyers } from "../../../../testkit/buyer/budgetStackBuyers.ts";
import { callTool } from "../../../../testkit/buyer/connectBuyer.ts";
import { until } from "../../../../testkit/until.ts";

/**
 * A payment whose nonce the escrow spent while no log the buyer can read shows its debit (a provider dropping logs).
 * Its own stack: the test moves the chain's clock a day on, and a payment signed by the wall clock then would be
 * expired on chain.
 */
describe("attack: a provider hides a debit's log for good", function () {
  this.timeout(300_000);
  const kit = budgetStackBuyers("buyer-spent-unseen");
  let s: BudgetStack;
  before(() => {
    s = kit.stack;
  });

  async function connect(key: `0x${string}`, extra: Record<string, string>) {
    return (await kit.open(s.settings(key, kit.dataDir, extra))).client;
  }

  it("a day past its window the payment is paid for at most its cap, and no longer held against the budgets", async function () {
    // Before, its hold stayed held against the budgets for good (get_balance's `held`, every budget's room), and each
    // sync read the logs from its signing to the head again, a day of blocks more each day.
    const { lagging, resourceId, buyer, paid } = await kit.payBehindLaggingLogs(1_000_000);
    try {
      // Mined (the facilitator may hold a committed debit a while), then a day and two hours on: a day past the
      // payment's validBefore, whatever window it was signed for (at most an hour).
      await until(async () => ((await s.debits(buyer.address)).length === 1 ? true : undefined), 60_000, "mined");
      const provider = s.chain.connection.provider;
      await provider.request({ method: "evm_increaseTime", params: [26 * 3_600] });
      await provider.request({ method: "evm_mine", params: [] });
      // Without the facilitator's receipt (not reachable), only the escrow's spent nonce shows the payment.
      const alone = await connect(buyer.key, {
        RPC_URL: lagging.url,
        FACILITATOR_URL: "http://127.0.0.1:9",
        SPEND_DAILY_BUDGET: "1000000",
      });
      // Read until the chain answers every read of the sync (a read that fails leaves the hold as it was).
      const balance = await until(
        async () => {
          const answer = await callTool(alone, "get_balance");
          return /"held":\{"base":"0"/.test(JSON.stringify(answer.data)) ? answer : undefined;
        },
        60_000,
        "nothing held",
        1_000,
      );
      expect(balance.isError).to.equal(false);
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
