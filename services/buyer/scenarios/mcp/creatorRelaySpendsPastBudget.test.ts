import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "chai";
import type { Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import type { BudgetStack } from "../../../../testkit/buyer/budgetStack.ts";
import { CALL_PRICE, startBudgetStack } from "../../../../testkit/buyer/budgetStack.ts";
import type { ToolOutcome } from "../../../../testkit/buyer/connectBuyer.ts";
import { callTool, connectInMemory } from "../../../../testkit/buyer/connectBuyer.ts";
import { postJson } from "../../../../testkit/facilitator/startFacilitator.ts";
import { decodeBase64Json } from "../../../protocol/base64.ts";
import { formatAmount } from "../../src/sdk/formatAmount.ts";
import { payForCall } from "../../src/sdk/payForCall.ts";
import { readPinnedCard } from "../../src/sdk/readPinnedCard.ts";

/** A budget of get_balance, its amounts in base units. */
const baseUnits = (budget: unknown): Record<string, string> =>
  Object.fromEntries(Object.entries(budget as Record<string, { base: string }>).map(([k, v]) => [k, v.base]));

/** A budget of two calls. */
const BUDGET = (2n * CALL_PRICE).toString();

/**
 * A creator points the registry's `cardURI` at a relay of its own in front of its real gate and registers the hash of
 * the card the relay serves. Every paid call reaches the gate and is debited; the relay lies to the buyer about what
 * happened. Without the fix the buyer dates a debit by the receipt's `settledAt` (1970: outside every window, so the
 * budget never fills), drops a payment's hold on any failure after sending (a 502 after settlement: "failed", no
 * money moved), and pays from a card the registry's `cardHash` does not cover: the creator takes 6 calls of a 2-call
 * budget, and the buyer is told it spent nothing.
 */
describe("attack: a creator's relay lies about paid calls to spend past the buyer's budgets", function () {
  this.timeout(300_000);
  let s: BudgetStack;
  const dataDir = mkdtempSync(join(tmpdir(), "buyer-relay-"));

  before(async function () {
    s = await startBudgetStack();
  });

  after(async function () {
    await s?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  async function sixCalls(resourceId: Hex, key: Hex) {
    const { client, close } = await connectInMemory(s.settings(key, dataDir, { SPEND_HOURLY_BUDGET: BUDGET }));
    const outcomes: ToolOutcome[] = [];
    try {
      for (let n = 0; n < 6; n++) outcomes.push(await callTool(client, "call_resource", { resourceId, body: { n } }));
      const balance = await callTool(client, "get_balance");
      return { outcomes, hourly: baseUnits((balance.data.policy as { hourly: unknown }).hourly), client, close };
    } catch (error) {
      await close();
      throw error;
    }
  }

  it("receipts dated 1970: the budget counts the chain's debits by their block, and refuses the third call", async function () {
    const { resourceId } = await s.resource("rewrite-settled-at");
    const buyer = await s.buyer();
    const { outcomes, hourly, close } = await sixCalls(resourceId, buyer.key);
    await close();
    const paid = outcomes.filter((o) => !o.isError);
    expect(paid.map((o) => (o.data.receipt as { settledAt: string }).settledAt)).to.deep.equal([
      "1970-01-01T00:00:00.000Z",
      "1970-01-01T00:00:00.000Z",
    ]);
    for (const refused of outcomes.slice(2))
      expect(refused.error).to.include({ code: "spend_refused", remaining: "0" });
    expect(await s.debits(buyer.address)).to.deep.equal([CALL_PRICE, CALL_PRICE]);
    expect(hourly).to.include({ spent: BUDGET, held: "0", remaining: "0" });
  });

  it("a 502 after settlement: the call is payment_unknown with what to do, its hold stays, and the chain settles it", async function () {
    const { resourceId } = await s.resource("fail-after-settle");
    const buyer = await s.buyer();
    const { outcomes, hourly, client, close } = await sixCalls(resourceId, buyer.key);
    try {
      const [first, second, ...rest] = outcomes;
      for (const unknown of [first, second]) {
        expect(unknown?.error).to.include({ code: "payment_unknown", next: "recover_result" });
        expect(unknown?.error?.message).to.match(/Do not pay again/);
      }
      for (const refused of rest) expect(refused.error).to.include({ code: "spend_refused", remaining: "0" });
      expect(await s.debits(buyer.address)).to.deep.equal([CALL_PRICE, CALL_PRICE]);
      expect(BigInt(hourly.spent ?? "") + BigInt(hourly.held ?? "")).to.equal(BigInt(BUDGET));

      const recovered = await callTool(client, "recover_result", { idemKey: first?.error?.idemKey });
      expect(recovered.data).to.deep.include({ outcome: "paid", amount: formatAmount(CALL_PRICE) });
      expect(recovered.data.body).to.deep.equal({ echo: { n: 0 } });
      const after = await callTool(client, "get_balance");
      expect(baseUnits((after.data.policy as { hourly: unknown }).hourly)).to.include({ spent: BUDGET, held: "0" });
    } finally {
      await close();
    }
  });

  it("the SDK says payment_unknown too, never a failure that means no money moved", async function () {
    const { relay } = await s.resource("fail-after-settle");
    const buyer = await s.buyer();
    const chain = s.buyerChain();
    const failure = await payForCall({
      chain,
      account: privateKeyToAccount(buyer.key),
      callUrl: relay.callUrl,
      body: { sdk: true },
    }).catch((error: Error) => error);
    expect(failure).to.include({ code: "payment_unknown" });
    expect(failure).to.have.property("idemKey");
    expect(await s.debits(buyer.address)).to.deep.equal([CALL_PRICE]);
  });

  it("a served card the registry's cardHash does not cover is refused, and nothing is signed", async function () {
    const { resourceId, relay } = await s.resource("forward");
    relay.state.card = { ...relay.state.card, description: "Now twice as good." };
    const buyer = await s.buyer();
    const chain = s.buyerChain();
    const pinned = await readPinnedCard(chain, resourceId).catch((error: Error) => error);
    expect(pinned).to.have.property("code", "invalid_card");
    const { client, close } = await connectInMemory(s.settings(buyer.key, dataDir));
    const card = await callTool(client, "get_card", { resourceId });
    const paid = await callTool(client, "call_resource", { resourceId, body: {} });
    await close();
    expect(card.error?.code).to.equal("invalid_card");
    expect(paid.error?.code).to.equal("invalid_card");
    expect(paid.error?.message).to.match(/cardHash/);
    expect(relay.payments.size).to.equal(0);
  });

  // Last: it moves the chain's clock past the authorization's window.
  it("a payment the relay keeps is held until the chain passes its validBefore with the nonce unspent", async function () {
    const { resourceId, relay } = await s.resource("swallow");
    const buyer = await s.buyer();
    const { client, close } = await connectInMemory(
      s.settings(buyer.key, dataDir, { SPEND_HOURLY_BUDGET: CALL_PRICE.toString() }),
    );
    try {
      const kept = await callTool(client, "call_resource", { resourceId, body: {} });
      expect(kept.error).to.include({ code: "payment_unknown" });
      const idemKey = kept.error?.idemKey;
      const next = await callTool(client, "call_resource", { resourceId, body: {} });
      expect(next.error).to.include({ code: "spend_refused", remaining: "0" });
      const pending = await callTool(client, "recover_result", { idemKey });
      expect(pending.data).to.include({ outcome: "pending", validBefore: kept.error?.validBefore });
      expect(pending.data).not.to.have.property("facilitator");

      // The relay takes the payment to the facilitator after all, as a gate serving it would: while it is reserved
      // the facilitator says so, and once released (nothing charged) it says nothing again.
      const header = relay.payments.get(String(idemKey))?.header;
      expect(header, "the relay kept the payment").to.be.a("string");
      const facilitator = s.stack.facilitator.url;
      const verified = await postJson(`${facilitator}/verify`, {
        paymentPayload: decodeBase64Json(header!),
        resourceId,
        maxTimeoutSeconds: 60,
      });
      expect(verified.body.isValid, JSON.stringify(verified.body)).to.equal(true);
      const served = await callTool(client, "recover_result", { idemKey });
      expect(served.data).to.include({ outcome: "pending", facilitator: "in_progress" });
      expect(served.data.message).to.match(/facilitator holds it open/);
      const payer = buyer.address;
      expect((await postJson(`${facilitator}/release`, { idemKey, payer, resourceId })).status).to.equal(200);
      const released = await callTool(client, "recover_result", { idemKey });
      expect(released.data).to.include({ outcome: "pending", validBefore: kept.error?.validBefore });
      expect(released.data).not.to.have.property("facilitator");

      // Past the signed window (the hour the gate asks for, less the SDK's clock margin) on the chain's clock.
      const provider = s.chain.connection.provider;
      const latest = await s.chain.publicClient.getBlock({ blockTag: "latest" });
      const past = Date.parse(kept.error?.validBefore ?? "") / 1000 - Number(latest.timestamp) + 10;
      await provider.request({ method: "evm_increaseTime", params: [Math.ceil(past)] });
      await provider.request({ method: "evm_mine", params: [] });
      const settled = await callTool(client, "recover_result", { idemKey });
      expect(settled.data).to.include({ outcome: "not_paid" });
      const balance = await callTool(client, "get_balance");
      expect(baseUnits((balance.data.policy as { hourly: unknown }).hourly)).to.include({
        spent: "0",
        held: "0",
        remaining: CALL_PRICE.toString(),
      });
      expect(await s.debits(buyer.address)).to.deep.equal([]);
    } finally {
      await close();
    }
  });
});
