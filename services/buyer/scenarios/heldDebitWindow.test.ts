import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "chai";
import type { Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import type { BudgetStack } from "../../../testkit/buyer/budgetStack.ts";
import { startBudgetStack } from "../../../testkit/buyer/budgetStack.ts";
import { callTool, connectInMemory } from "../../../testkit/buyer/connectBuyer.ts";
import { getJson } from "../../../testkit/facilitator/startFacilitator.ts";
import { sleep } from "../../../testkit/sleep.ts";
import { decodeBase64Json } from "../../protocol/base64.ts";
import { BASE_FEE_FLOOR_WEI } from "../../protocol/constants.ts";
import { settlementIdOf } from "../../protocol/settlementId.ts";
import { acceptReceipt } from "../src/sdk/acceptReceipt.ts";
import { MAX_SIGNED_WINDOW_SECONDS } from "../src/sdk/authorizationWindow.ts";
import { payForCall } from "../src/sdk/payForCall.ts";
import { verifyDebit } from "../src/sdk/verifyDebit.ts";

const TEN_YEARS = 10 * 365 * 86_400;
/** Priced above the verify floor, yet one debit's treasury share (400) pays far less than its gas at 20 gwei: held. */
const HELD_TERMS = { cap: 50_000n, base: 8_000n, perKB: 0n };

/**
 * The gates ask for an hour-long authorization (`extra.authorizationSeconds`) so the facilitator can hold a committed
 * debit until its batch pays for its gas, and the buyer takes a committed receipt as final. Before this, the quote
 * schema refused `extra`, the SDK signed `maxTimeoutSeconds` + 120 s whatever a gate asked, and the buyer's tools
 * waited 30 s for the debit on chain and then called a held debit payment_unknown.
 */
describe("long authorization windows and committed receipts taken as final", function () {
  this.timeout(300_000);
  let s: BudgetStack;
  const dataDir = mkdtempSync(join(tmpdir(), "buyer-held-"));

  before(async function () {
    s = await startBudgetStack({ facilitatorEnv: { SETTLEMENT: "committed", HOLD_MAX_SECONDS: "3600" } });
  });

  after(async function () {
    await s?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** The validBefore the buyer signed, as the relay in front of the gate saw its X-PAYMENT header. */
  const signedValidBefore = (relay: Awaited<ReturnType<BudgetStack["resource"]>>["relay"], idemKey: Hex) => {
    const header = relay.payments.get(idemKey.toLowerCase())?.header;
    const payload = decodeBase64Json(header ?? "") as { authorization: { validBefore: string } };
    return Number(payload.authorization.validBefore);
  };
  const now = () => Math.floor(Date.now() / 1000);
  /**
   * Puts the local chain's base fee back at the test network's floor, where one of these debits cannot pay for its
   * batch (blocks below their gas target lower it), and lets the relayer's fee reads (each cached for a second) expire,
   * so the next debit is judged at the floor.
   */
  const atFloorFee = async () => {
    await s.chain.setBaseFee(BASE_FEE_FLOOR_WEI);
    await sleep(2_100);
  };

  it("signs the window the quote asks for, within the buyer's own cap, and the facilitator takes it", async function () {
    const { relay } = await s.resource("forward", HELD_TERMS);
    const buyer = await s.buyer();
    const account = privateKeyToAccount(buyer.key);
    const before = now();
    const full = await payForCall({ chain: s.buyerChain(), account, callUrl: relay.callUrl, body: { n: 1 } });
    expect(full.quote.accepts[0].extra).to.deep.equal({ authorizationSeconds: 3_600 });
    expect(Number(full.validBefore)).to.be.within(
      before + MAX_SIGNED_WINDOW_SECONDS,
      now() + MAX_SIGNED_WINDOW_SECONDS,
    );
    expect(signedValidBefore(relay, full.idemKey)).to.equal(Number(full.validBefore));
    const capped = await payForCall({
      chain: s.buyerChain(),
      account,
      callUrl: relay.callUrl,
      body: { n: 2 },
      maxAuthorizationSeconds: 900,
    });
    expect(Number(capped.validBefore)).to.be.within(before + 900, now() + 900);
    expect([full.receipt.status, capped.receipt.status]).to.deep.equal(["committed", "committed"]);
  });

  it("a gate asking for a ten-year window gets at most the buyer's cap", async function () {
    const { relay } = await s.resource("forward", HELD_TERMS);
    relay.state.rewriteQuote = (quote) => {
      const accepts = quote.accepts as Record<string, unknown>[];
      accepts[0] = { ...accepts[0], extra: { authorizationSeconds: TEN_YEARS } };
      return quote;
    };
    const buyer = await s.buyer();
    const account = privateKeyToAccount(buyer.key);
    const capped = await payForCall({
      chain: s.buyerChain(),
      account,
      callUrl: relay.callUrl,
      body: {},
      maxAuthorizationSeconds: 600,
    });
    expect(signedValidBefore(relay, capped.idemKey) - now()).to.be.within(0, 600);
    const uncapped = await payForCall({ chain: s.buyerChain(), account, callUrl: relay.callUrl, body: {} });
    expect(signedValidBefore(relay, uncapped.idemKey) - now()).to.be.within(0, MAX_SIGNED_WINDOW_SECONDS);
    expect(uncapped.receipt.status, "the facilitator took the clamped window").to.equal("committed");
  });

  it("a quote asking for a negative window is refused before anything is signed", async function () {
    const { relay } = await s.resource("forward", HELD_TERMS);
    relay.state.rewriteQuote = (quote) => {
      const accepts = quote.accepts as Record<string, unknown>[];
      accepts[0] = { ...accepts[0], extra: { authorizationSeconds: -3_600 } };
      return quote;
    };
    const buyer = await s.buyer();
    const refused = await payForCall({
      chain: s.buyerChain(),
      account: privateKeyToAccount(buyer.key),
      callUrl: relay.callUrl,
      body: {},
    }).catch((error: { code?: string }) => error.code);
    expect(refused).to.equal("invalid_quote");
    expect(relay.payments.size).to.equal(0);
  });

  it("a committed receipt is final: accepted at once while the relayer holds its debit off chain", async function () {
    const { relay } = await s.resource("forward", HELD_TERMS);
    const buyer = await s.buyer();
    const chain = s.buyerChain();
    await atFloorFee();
    const paid = await payForCall({ chain, account: privateKeyToAccount(buyer.key), callUrl: relay.callUrl, body: {} });
    expect(await acceptReceipt(chain, paid.receipt)).to.deep.equal({
      settlement: "committed",
      settlementId: settlementIdOf({ escrow: s.chain.addresses.escrow, buyer: buyer.address, nonce: paid.idemKey }),
    });
    const result = await getJson(`${s.stack.facilitator.url}/results/${paid.idemKey}?payer=${buyer.address}`);
    expect(result.body).to.include({ settlement: "committed", held: true });
    expect(await s.debits(buyer.address)).to.deep.equal([]);
    const strict = await verifyDebit(chain, paid.receipt, { waitMs: 300 }).catch((e: { code?: string }) => e.code);
    expect(strict, "verifyDebit still waits for the chain").to.equal("not_confirmed");
  });

  it("a committed receipt naming another payment's settlement, or a split the escrow cannot make, is refused", async function () {
    const { relay } = await s.resource("forward", HELD_TERMS);
    const buyer = await s.buyer();
    const chain = s.buyerChain();
    const paid = await payForCall({ chain, account: privateKeyToAccount(buyer.key), callUrl: relay.callUrl, body: {} });
    const refusal = (receipt: typeof paid.receipt) =>
      acceptReceipt(chain, receipt).then(
        () => "accepted",
        (error: { code?: string }) => error.code,
      );
    const other = settlementIdOf({
      escrow: s.chain.addresses.escrow,
      buyer: buyer.address,
      nonce: `0x${"11".repeat(32)}`,
    });
    expect(await refusal({ ...paid.receipt, settlementId: other })).to.equal("bad_receipt");
    const amount = BigInt(paid.receipt.amount);
    const allToTreasury = { ...paid.receipt, creatorAmount: "0", treasuryAmount: amount.toString() };
    expect(await refusal(allToTreasury)).to.equal("bad_receipt");
    expect(await refusal(paid.receipt)).to.equal("accepted");
  });

  it("the MCP tools answer a held debit as committed, list it pending and keep its cap held in the budget", async function () {
    const { resourceId } = await s.resource("forward", HELD_TERMS);
    const buyer = await s.buyer(1_000_000n);
    const budget = (10n * HELD_TERMS.cap).toString();
    const { client, close } = await connectInMemory(
      s.settings(buyer.key, dataDir, { SPEND_HOURLY_BUDGET: budget, SPEND_MAX_AUTHORIZATION_SECONDS: "1200" }),
    );
    try {
      await atFloorFee();
      const called = await callTool(client, "call_resource", { resourceId, body: {} });
      expect(called.isError, JSON.stringify(called.error)).to.equal(false);
      expect(called.data).to.include({ settlement: "committed" });
      expect(called.data).not.to.have.property("transaction");
      const idemKey = called.data.idemKey as string;
      const listed = await callTool(client, "list_payments");
      const [payment] = listed.data.payments as Record<string, unknown>[];
      expect(payment).to.include({ idemKey, status: "pending", settlement: "committed" });
      expect(payment?.receipt).to.include({ status: "committed", idemKey });
      expect(Date.parse(payment?.validBefore as string) / 1000 - now()).to.be.within(0, 1_200);
      const recovered = await callTool(client, "recover_result", { idemKey });
      expect(recovered.data).to.include({ outcome: "pending", settlement: "committed" });
      const balance = await callTool(client, "get_balance");
      const hourly = (balance.data.policy as { hourly: Record<string, { base: string }> }).hourly;
      expect(hourly.held?.base).to.equal(HELD_TERMS.cap.toString());
      expect(hourly.spent?.base).to.equal("0");
    } finally {
      await close();
    }
  });

  it("a malformed buyer cap refuses every payment, naming the setting", async function () {
    const { resourceId } = await s.resource("forward", HELD_TERMS);
    const buyer = await s.buyer();
    const { client, close } = await connectInMemory(
      s.settings(buyer.key, dataDir, { SPEND_MAX_AUTHORIZATION_SECONDS: "36000" }),
    );
    try {
      const refused = await callTool(client, "call_resource", { resourceId, body: {} });
      expect(refused.isError).to.equal(true);
      expect(refused.error?.message).to.match(/SPEND_MAX_AUTHORIZATION_SECONDS/);
    } finally {
      await close();
    }
    expect(await s.debits(buyer.address)).to.deep.equal([]);
  });
});
