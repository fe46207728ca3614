import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { ElicitRequest, ElicitResult } from "@modelcontextprotocol/sdk/types.js";
import { expect } from "chai";
import type { Address, Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import type { BudgetStack } from "../../../../testkit/buyer/budgetStack.ts";
import { CALL_PRICE } from "../../../../testkit/buyer/budgetStack.ts";
import { budgetStackBuyers } from "../../../../testkit/buyer/budgetStackBuyers.ts";
import { callTool, type connectInMemory } from "../../../../testkit/buyer/connectBuyer.ts";
import { countVerifies } from "../../../../testkit/facilitator/countVerifies.ts";
import { decodeBase64Json, encodeBase64Json } from "../../../protocol/base64.ts";
import { randomNonce } from "../../../protocol/resourceId.ts";
import { bondTypedData } from "../../../protocol/typedData.ts";
import { readBalance } from "../../src/sdk/readBalance.ts";

type Amount = { base: string; usdc: string };

/**
 * A facilitator's front that answers `GET /results/...` with the stored receipt's `transaction` replaced by `transaction`
 * (everything else passes through as the facilitator answered it).
 */
async function serveRewrittenResults(facilitatorUrl: string, transaction: string) {
  const server = createServer(async (req, res) => {
    const upstream = await fetch(`${facilitatorUrl}${req.url}`);
    const body = (await upstream.json()) as { receipt?: string };
    if (req.url?.startsWith("/results/") && body.receipt)
      body.receipt = encodeBase64Json({ ...(decodeBase64Json(body.receipt) as object), transaction });
    res.writeHead(upstream.status, { "content-type": "application/json" }).end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * The buyer's money tools through the official MCP client against a real chain, facilitator and gates: what a call
 * costs (quote), asking the user before a large payment (elicitation), and funding, withdrawing, the on-chain spend
 * limit and the payment history.
 */
describe("buyer MCP tools: prices, confirmation, funding and history", function () {
  this.timeout(300_000);
  const kit = budgetStackBuyers("buyer-tools");
  const dataDir = kit.dataDir;
  let s: BudgetStack;
  before(() => {
    s = kit.stack;
  });

  async function connect(key: Hex, extra: Record<string, string> = {}, elicit?: Parameters<typeof connectInMemory>[1]) {
    return (await kit.open(s.settings(key, dataDir, extra), elicit)).client;
  }

  const verifies = () => countVerifies(s.stack.facilitator.url);

  async function giveGas(address: Address) {
    await s.chain.connection.provider.request({ method: "hardhat_setBalance", params: [address, "0x16345785D8A0000"] });
  }

  async function passTime(seconds: number) {
    const provider = s.chain.connection.provider;
    await provider.request({ method: "evm_increaseTime", params: [seconds] });
    await provider.request({ method: "evm_mine", params: [] });
  }

  const escrowOf = (address: Address) => s.chain.contracts.escrow.read.balanceOf([address]) as Promise<bigint>;
  const walletOf = (address: Address) => s.chain.contracts.token.read.balanceOf([address]) as Promise<bigint>;

  /** A user who answers every confirmation with `answer`, and the questions it was asked. */
  function user(answer: ElicitResult | (() => never)) {
    const asked: ElicitRequest["params"][] = [];
    return {
      asked,
      elicit: async (request: ElicitRequest["params"]) => {
        asked.push(request);
        return typeof answer === "function" ? answer() : answer;
      },
    };
  }

  describe("quote: the price of this body and the cap", function () {
    it("answers the metered terms, what responses of N KB cost (each at most the cap), and the cap, in base units and USDC", async function () {
      const { resourceId } = await s.resource("forward", {
        cap: 50_000n,
        base: 1_000n,
        perKB: 200n,
        computeMultiplier: 1.5,
        maxResponseBytes: 65_536,
      });
      const buyer = await s.buyer();
      const client = await connect(buyer.key);
      const quote = await callTool(client, "quote", { resourceId, body: { hello: "price" }, responseKB: 4 });
      expect(quote.isError, JSON.stringify(quote.data)).to.equal(false);
      const price = quote.data.price as {
        base: Amount;
        perKB: Amount;
        computeMultiplier: number;
        byResponseSize: { responseKB: number; cost: Amount }[];
        cap: Amount;
        formula: string;
      };
      expect(price.base).to.deep.equal({ base: "1000", usdc: "0.001 USDC" });
      expect(price.perKB).to.deep.equal({ base: "200", usdc: "0.0002 USDC" });
      expect(price.computeMultiplier).to.equal(1.5);
      expect(price.cap).to.deep.equal({ base: "50000", usdc: "0.05 USDC" });
      const cost = Object.fromEntries(price.byResponseSize.map((row) => [row.responseKB, row.cost.base]));
      // ceil((1000 + 200 × KB) × 1.5), at most the cap of 50000.
      expect(cost).to.deep.equal({ 1: "1800", 4: "2700", 10: "4500", 64: "20700" });
      expect(price.formula).to.match(/not by the request body/);
      expect(quote.data.signed).to.equal(false);
    });

    it("a body the request schema refuses is invalid_body with the schema's message, not no_quote, and nothing is signed", async function () {
      const { resourceId } = await s.resource("forward", {
        requestSchema: {
          type: "object",
          required: ["text"],
          properties: { text: { type: "string" } },
          additionalProperties: false,
        },
        sampleRequest: { text: "hello" },
      });
      const buyer = await s.buyer();
      const client = await connect(buyer.key);
      const before = await verifies();
      const quote = await callTool(client, "quote", { resourceId, body: { txt: "typo" } });
      expect(quote.error?.code).to.equal("invalid_body");
      expect(quote.error?.message)
        .to.match(/request schema/)
        .and.to.match(/text/);
      const paid = await callTool(client, "call_resource", { resourceId, body: { text: 7 } });
      expect(paid.error?.code).to.equal("invalid_body");
      expect(await verifies()).to.equal(before);
      const payments = await callTool(client, "list_payments");
      expect(payments.data.payments).to.deep.equal([]);
    });

    it("SPEND_MAX_PER_CALL refuses by the cap, the most a call can debit, and says so in base units and USDC", async function () {
      const { resourceId } = await s.resource();
      const buyer = await s.buyer();
      const client = await connect(buyer.key, { SPEND_MAX_PER_CALL: (CALL_PRICE - 1n).toString() });
      const refused = await callTool(client, "call_resource", { resourceId, body: {} });
      expect(refused.error).to.include({ code: "spend_refused", rule: "SPEND_MAX_PER_CALL" });
      expect(refused.error?.message).to.include("the most it can debit, is 1200 base units (0.0012 USDC)");
      expect(refused.error?.message).to.include("SPEND_MAX_PER_CALL 1199 base units (0.001199 USDC)");
      const { tools } = await client.listTools();
      expect(tools.find((t) => t.name === "call_resource")?.description).to.match(
        /SPEND_MAX_PER_CALL refuses a call whose cap/,
      );
    });
  });

  describe("attack: a payment above SPEND_CONFIRM_ABOVE without the user's yes", function () {
    const THRESHOLD = (CALL_PRICE - 1n).toString();

    async function nothingPaid(client: Awaited<ReturnType<typeof connect>>, buyer: Address, verifiedBefore: number) {
      expect(await s.debits(buyer)).to.deep.equal([]);
      expect(await verifies()).to.equal(verifiedBefore);
      const balance = await callTool(client, "get_balance");
      const hourly = (balance.data.policy as { hourly?: { held: Amount } }).hourly;
      if (hourly) expect(hourly.held.base).to.equal("0");
      expect((await callTool(client, "list_payments")).data.payments).to.deep.equal([]);
    }

    it("the user declines: payment_declined, no hold, no reservation at the facilitator, no debit", async function () {
      const { resourceId } = await s.resource();
      const buyer = await s.buyer();
      const declining = user({ action: "decline" });
      const client = await connect(
        buyer.key,
        { SPEND_CONFIRM_ABOVE: THRESHOLD, SPEND_HOURLY_BUDGET: "100000" },
        { elicit: declining.elicit },
      );
      const before = await verifies();
      const outcome = await callTool(client, "call_resource", { resourceId, body: { n: 1 } });
      expect(outcome.error?.code).to.equal("payment_declined");
      expect(outcome.error?.message).to.match(/nothing was signed or paid/);
      expect(declining.asked).to.have.length(1);
      expect(declining.asked[0]?.message).to.include("1200 base units (0.0012 USDC)");
      expect(declining.asked[0]?.message).to.include(resourceId);
      await nothingPaid(client, buyer.address, before);
    });

    it("the user cancels, or accepts with confirm unchecked: nothing is paid", async function () {
      const { resourceId } = await s.resource();
      const buyer = await s.buyer();
      const before = await verifies();
      const cancelling = await connect(buyer.key, { SPEND_CONFIRM_ABOVE: THRESHOLD }, user({ action: "cancel" }));
      expect((await callTool(cancelling, "call_resource", { resourceId, body: {} })).error?.code).to.equal(
        "payment_cancelled",
      );
      const unchecked = await connect(
        buyer.key,
        { SPEND_CONFIRM_ABOVE: THRESHOLD },
        user({ action: "accept", content: { confirm: false } }),
      );
      expect((await callTool(unchecked, "call_resource", { resourceId, body: {} })).error?.code).to.equal(
        "payment_declined",
      );
      await nothingPaid(unchecked, buyer.address, before);
    });

    it("a client without elicitation is refused, naming SPEND_CONFIRM_ABOVE, before anything is signed", async function () {
      const { resourceId } = await s.resource();
      const buyer = await s.buyer();
      const client = await connect(buyer.key, { SPEND_CONFIRM_ABOVE: THRESHOLD });
      const before = await verifies();
      const refused = await callTool(client, "call_resource", { resourceId, body: {} });
      expect(refused.error?.code).to.equal("confirmation_unavailable");
      expect(refused.error?.message).to.include("SPEND_CONFIRM_ABOVE").and.to.include("elicitation");
      await nothingPaid(client, buyer.address, before);
    });

    it("the user accepts: paid once; a cap at the threshold pays without asking", async function () {
      const { resourceId } = await s.resource();
      const buyer = await s.buyer();
      const accepting = user({ action: "accept", content: { confirm: true } });
      const client = await connect(buyer.key, { SPEND_CONFIRM_ABOVE: THRESHOLD }, accepting);
      const paid = await callTool(client, "call_resource", { resourceId, body: { n: 2 } });
      expect(paid.isError, JSON.stringify(paid.data)).to.equal(false);
      expect(paid.data.amount).to.deep.equal({ base: "1200", usdc: "0.0012 USDC" });
      expect(accepting.asked).to.have.length(1);
      expect(await s.debits(buyer.address)).to.deep.equal([CALL_PRICE]);

      const atThreshold = user(() => {
        throw new Error("asked for a cap at the threshold");
      });
      const quiet = await connect(buyer.key, { SPEND_CONFIRM_ABOVE: CALL_PRICE.toString() }, atThreshold);
      expect((await callTool(quiet, "call_resource", { resourceId, body: { n: 3 } })).isError).to.equal(false);
      expect(atThreshold.asked).to.deep.equal([]);
    });

    it("a malformed SPEND_CONFIRM_ABOVE refuses every payment, naming it", async function () {
      const { resourceId } = await s.resource();
      const buyer = await s.buyer();
      const client = await connect(buyer.key, { SPEND_CONFIRM_ABOVE: "0.01" });
      const refused = await callTool(client, "call_resource", { resourceId, body: {} });
      expect(refused.error?.code).to.equal("bad_setting");
      expect(refused.error?.message).to.include("SPEND_CONFIRM_ABOVE");
      expect(await s.debits(buyer.address)).to.deep.equal([]);
    });
  });

  // The withdrawal and spend-limit tests move the chain's clock a day on: paying tests come before them.
  describe("funding and history", function () {
    async function walletBuyer(tokens: bigint) {
      const buyer = await s.buyer(1n);
      await s.chain.publicClient.waitForTransactionReceipt({
        hash: await s.chain.contracts.token.write.mint([buyer.address, tokens]),
      });
      return buyer;
    }

    it("list_payments shows each paid call with its amount, transaction and receipt, newest first", async function () {
      const { resourceId } = await s.resource();
      const buyer = await s.buyer();
      const client = await connect(buyer.key);
      const first = await callTool(client, "call_resource", { resourceId, body: { n: 1 } });
      const second = await callTool(client, "call_resource", { resourceId, body: { n: 2 } });
      const listed = await callTool(client, "list_payments");
      expect(listed.isError, JSON.stringify(listed.data)).to.equal(false);
      const payments = listed.data.payments as Record<string, unknown>[];
      expect(payments.map((p) => p.idemKey)).to.deep.equal([second.data.idemKey, first.data.idemKey]);
      for (const [payment, paid] of [
        [payments[0], second],
        [payments[1], first],
      ] as const) {
        expect(payment).to.deep.include({
          resourceId,
          status: "paid",
          amount: { base: "1200", usdc: "0.0012 USDC" },
          cap: { base: "1200", usdc: "0.0012 USDC" },
          transaction: paid.data.transaction,
        });
        expect((payment?.receipt as { idemKey?: string } | undefined)?.idemKey).to.equal(paid.data.idemKey);
      }
      expect(listed.data.totalPaid).to.deep.equal({ base: "2400", usdc: "0.0024 USDC" });
      const one = await callTool(client, "list_payments", { limit: 1 });
      expect((one.data.payments as unknown[]).length).to.equal(1);
      expect(one.data.total).to.equal(2);
    });

    it("attack: a provider whose logs lag hides no mined payment (paid, from the receipt the chain confirms), and a receipt naming another transaction makes none paid", async function () {
      // Before, a debit mined after the ledger's scan (here: a provider whose logs lag the head) was listed pending,
      // without its settlement or its receipt, and recovered as "not debited yet", though the facilitator held its
      // confirmed receipt.
      const { lagging, resourceId, buyer, client, paid } = await kit.payBehindLaggingLogs(1_000);
      try {
        const listed = await callTool(client, "list_payments");
        expect(listed.isError, JSON.stringify(listed.data)).to.equal(false);
        const [payment] = listed.data.payments as Record<string, unknown>[];
        expect(await s.debits(buyer.address), "the chain debited it").to.deep.equal([CALL_PRICE]);
        expect(payment).to.deep.include({
          idemKey: paid.data.idemKey,
          status: "paid",
          amount: { base: "1200", usdc: "0.0012 USDC" },
          transaction: paid.data.transaction,
        });
        expect(payment).not.to.have.property("settlement");
        expect((payment?.receipt as { transaction?: string } | undefined)?.transaction).to.equal(paid.data.transaction);
        expect(listed.data.totalPaid).to.deep.equal({ base: "1200", usdc: "0.0012 USDC" });
        const recovered = await callTool(client, "recover_result", { idemKey: paid.data.idemKey });
        expect(recovered.data).to.deep.include({
          outcome: "paid",
          amount: { base: "1200", usdc: "0.0012 USDC" },
          transaction: paid.data.transaction,
        });
        expect(recovered.data.body).to.deep.equal({ echo: { n: 1 } });

        // A facilitator whose stored receipt names another transaction (here: another buyer's debit) makes nothing
        // paid: the transaction on chain must hold this payment's debit.
        const other = await callTool(await connect((await s.buyer()).key), "call_resource", {
          resourceId,
          body: { n: 2 },
        });
        const lying = await serveRewrittenResults(s.stack.facilitator.url, other.data.transaction as string);
        try {
          const fooled = await connect(buyer.key, { RPC_URL: lagging.url, FACILITATOR_URL: lying.url });
          const [shown] = (await callTool(fooled, "list_payments")).data.payments as Record<string, unknown>[];
          expect(shown).to.include({ idemKey: paid.data.idemKey, status: "pending" });
          expect(shown).not.to.have.property("receipt");
          const unproven = await callTool(fooled, "recover_result", { idemKey: paid.data.idemKey });
          expect(unproven.data.outcome).to.equal("pending");
        } finally {
          await lying.close();
        }
      } finally {
        await lagging.close();
      }
    });

    it("attack: a debit the scans missed is not released as not paid when its window passes, and the daily budget counts it", async function () {
      // Before, a hold was released on chain time alone once its validBefore passed, and each scan marked the blocks up
      // to the head it read as scanned, whatever logs came back: a debit mined while the provider's logs lagged was
      // never read again, the hold was released an hour later, the call listed not_paid and recovered "nothing was
      // paid", and the daily budget let the next call through.
      const { lagging, resourceId, buyer, client, paid } = await kit.payBehindLaggingLogs(1_000_000, {
        SPEND_DAILY_BUDGET: CALL_PRICE.toString(),
      });
      try {
        await passTime(2 * 3_600);
        // Past its window with its debit still out of the logs, and once the logs show it: paid (the first time from
        // the receipt the chain confirms), and the day's budget spent.
        for (const logs of [1_000_000, 0]) {
          lagging.lag.logs = logs;
          const listed = await callTool(client, "list_payments");
          expect((listed.data.payments as Record<string, unknown>[])[0], `logs ${logs} blocks behind`).to.include({
            idemKey: paid.data.idemKey,
            status: "paid",
            transaction: paid.data.transaction,
          });
          expect(listed.data.totalPaid).to.deep.equal({ base: "1200", usdc: "0.0012 USDC" });
          const recovered = await callTool(client, "recover_result", { idemKey: paid.data.idemKey });
          expect(recovered.data.outcome).to.equal("paid");
          const refused = await callTool(client, "call_resource", { resourceId, body: { n: 2 } });
          expect(refused.isError, "the day's budget is spent").to.equal(true);
          expect(refused.data.error).to.include({ code: "spend_refused", rule: "SPEND_DAILY_BUDGET" });
        }
        expect(await s.debits(buyer.address)).to.deep.equal([CALL_PRICE]);
      } finally {
        await lagging.close();
      }
    });

    it("deposit without gas signs a ReceiveWithAuthorization that anyone can submit, crediting only the buyer", async function () {
      const buyer = await walletBuyer(2_000_000n);
      const client = await connect(buyer.key);
      const balance = await callTool(client, "get_balance");
      expect((balance.data.gas as { note?: string }).note).to.match(/no native coin/);
      const deposit = await callTool(client, "deposit", { amount: "1500000" });
      expect(deposit.isError, JSON.stringify(deposit.data)).to.equal(false);
      expect(deposit.data).to.deep.include({ submitted: false, amount: { base: "1500000", usdc: "1.5 USDC" } });
      expect(deposit.data.message).to.match(/no native coin/);
      const a = deposit.data.authorization as {
        from: Hex;
        value: string;
        validAfter: string;
        validBefore: string;
        nonce: Hex;
        signature: Hex;
      };
      // A stranger with gas submits it.
      const stranger = s.chain.wallets[5]!.account;
      await s.chain.publicClient.waitForTransactionReceipt({
        hash: await s.chain.contracts.escrow.write.depositWithAuthorization(
          [a.from, BigInt(a.value), BigInt(a.validAfter), BigInt(a.validBefore), a.nonce, a.signature],
          { account: stranger },
        ),
      });
      expect(await escrowOf(buyer.address)).to.equal(1_500_001n);
      expect(await walletOf(buyer.address)).to.equal(500_000n);
      // Passing it back once used is refused before any gas is spent.
      await giveGas(buyer.address);
      const again = await callTool(client, "deposit", { amount: "1500000", authorization: a });
      expect(again.error?.code).to.equal("bad_authorization");
      expect(again.error?.message).to.match(/already used/);
    });

    it("deposit with gas sends depositWithAuthorization from the buyer's key", async function () {
      const buyer = await walletBuyer(1_000_000n);
      await giveGas(buyer.address);
      const client = await connect(buyer.key);
      const deposit = await callTool(client, "deposit", { amount: "400000" });
      expect(deposit.isError, JSON.stringify(deposit.data)).to.equal(false);
      expect(deposit.data).to.deep.include({ submitted: true, escrow: { base: "400001", usdc: "0.400001 USDC" } });
      expect(await walletOf(buyer.address)).to.equal(600_000n);
      const tooMuch = await callTool(client, "deposit", { amount: "700000" });
      expect(tooMuch.error?.code).to.equal("insufficient_wallet");
      expect(tooMuch.error?.message).to.include("600000 base units (0.6 USDC)");
    });

    it("attack: an authorization for another payee, or for another amount, is refused before anything is sent", async function () {
      const buyer = await walletBuyer(1_000_000n);
      await giveGas(buyer.address);
      const client = await connect(buyer.key);
      const account = privateKeyToAccount(buyer.key);
      const chainId = await s.chain.publicClient.getChainId();
      const latest = await s.chain.publicClient.getBlock();
      const sign = async (to: Address, value: bigint) => {
        const nonce = randomNonce();
        const fields = { from: account.address, value, validAfter: 0n, validBefore: latest.timestamp + 3600n, nonce };
        const signature = await account.signTypedData(bondTypedData(fields, to, s.chain.addresses.token, chainId));
        return {
          from: account.address,
          value: value.toString(),
          validAfter: "0",
          validBefore: fields.validBefore.toString(),
          nonce,
          signature,
        };
      };
      const toRegistry = await sign(s.chain.addresses.registry, 500_000n);
      const otherPayee = await callTool(client, "deposit", { amount: "500000", authorization: toRegistry });
      expect(otherPayee.error?.code).to.equal("bad_authorization");
      expect(otherPayee.error?.message).to.include(`to the escrow ${s.chain.addresses.escrow}`);
      const small = await sign(s.chain.addresses.escrow, 100_000n);
      const otherAmount = await callTool(client, "deposit", { amount: "500000", authorization: small });
      expect(otherAmount.error?.code).to.equal("bad_authorization");
      expect(otherAmount.error?.message).to.include("100000 base units (0.1 USDC), not the 500000");
      const relabelled = await callTool(client, "deposit", {
        amount: "500000",
        authorization: { ...small, value: "500000" },
      });
      expect(relabelled.error?.code).to.equal("bad_authorization");
      expect(await walletOf(buyer.address)).to.equal(1_000_000n);
      expect(await escrowOf(buyer.address)).to.equal(1n);
      for (const a of [toRegistry, small])
        expect(await s.chain.contracts.token.read.authorizationState([account.address, a.nonce as Hex])).to.equal(
          false,
        );
    });

    it("withdrawing: no gas says so; a request waits the delay with its time told; withdraw then pays the wallet", async function () {
      const buyer = await s.buyer(300_000n);
      const client = await connect(buyer.key);
      const noGas = await callTool(client, "request_withdrawal", { amount: "100000" });
      expect(noGas.error?.code).to.equal("no_gas");
      expect(noGas.error?.message).to.match(/native coin/);
      await giveGas(buyer.address);
      const tooMuch = await callTool(client, "request_withdrawal", { amount: "300001" });
      expect(tooMuch.error?.code).to.equal("insufficient_escrow");
      expect((await callTool(client, "withdraw")).error?.code).to.equal("no_withdrawal");
      const requested = await callTool(client, "request_withdrawal", { amount: "100000" });
      expect(requested.isError, JSON.stringify(requested.data)).to.equal(false);
      const unlocksAt = requested.data.unlocksAt as string;
      expect(requested.data.message)
        .to.include(unlocksAt)
        .and.to.match(/call withdraw then/);
      const balance = await callTool(client, "get_balance");
      expect(balance.data.pendingWithdrawal).to.deep.equal({
        amount: { base: "100000", usdc: "0.1 USDC" },
        unlocksAt,
      });
      const early = await callTool(client, "withdraw");
      expect(early.error?.code).to.equal("withdrawal_locked");
      expect(early.error?.message).to.include(unlocksAt);
      expect(await walletOf(buyer.address)).to.equal(0n);
      await passTime(86_400);
      const done = await callTool(client, "withdraw");
      expect(done.isError, JSON.stringify(done.data)).to.equal(false);
      expect(done.data.withdrawn).to.deep.equal({ base: "100000", usdc: "0.1 USDC" });
      expect(await walletOf(buyer.address)).to.equal(100_000n);
      expect(await escrowOf(buyer.address)).to.equal(200_000n);
    });

    it("set_spend_limit: a tightening waits a day and is put in force by asking again; removing it is at once", async function () {
      const buyer = await s.buyer();
      await giveGas(buyer.address);
      const client = await connect(buyer.key);
      const noPeriod = await callTool(client, "set_spend_limit", { limit: "5000", periodSeconds: 0 });
      expect(noPeriod.error?.code).to.equal("invalid_request");
      expect(noPeriod.error?.message).to.match(/periodSeconds must be positive/);
      const asked = await callTool(client, "set_spend_limit", { limit: "5000", periodSeconds: 3600 });
      expect(asked.isError, JSON.stringify(asked.data)).to.equal(false);
      expect(asked.data).to.include({ inForce: false });
      expect(asked.data.message).to.include(asked.data.effectiveAt as string);
      const pending = (await callTool(client, "get_balance")).data.spendLimit as { limit: Amount; pending: unknown };
      expect(pending.limit.base).to.equal("0");
      expect(pending.pending).to.deep.include({ limit: { base: "5000", usdc: "0.005 USDC" }, periodSeconds: "3600" });
      await passTime(86_400);
      const applied = await callTool(client, "set_spend_limit", { limit: "5000", periodSeconds: 3600 });
      expect(applied.data).to.include({ inForce: true });
      const limit = (await callTool(client, "get_balance")).data.spendLimit as { limit: Amount; pending: unknown };
      expect(limit).to.deep.include({ limit: { base: "5000", usdc: "0.005 USDC" }, pending: null });
      const removed = await callTool(client, "set_spend_limit", { limit: "0", periodSeconds: 0 });
      expect(removed.data).to.include({ inForce: true });
    });

    describe("attack: with SPEND_CONFIRM_ABOVE set, the money tools move funds or drop the on-chain limit without the user's yes", function () {
      /** A buyer with 0.5 USDC in escrow, 1 USDC in its wallet and gas, whose on-chain limit 5000 per hour is in force. */
      async function limitedBuyer() {
        const buyer = await s.buyer(500_000n);
        await s.chain.publicClient.waitForTransactionReceipt({
          hash: await s.chain.contracts.token.write.mint([buyer.address, 1_000_000n]),
        });
        await giveGas(buyer.address);
        const plain = await connect(buyer.key);
        expect((await callTool(plain, "set_spend_limit", { limit: "5000", periodSeconds: 3600 })).isError).to.equal(
          false,
        );
        await passTime(86_400);
        const applied = await callTool(plain, "set_spend_limit", { limit: "5000", periodSeconds: 3600 });
        expect(applied.data).to.include({ inForce: true });
        return buyer;
      }

      /** What the money tools can move: the balances, a pending withdrawal and the on-chain limit (gas aside). */
      const onChain = async (address: Address) => {
        const { escrow, wallet, pendingWithdrawal, withdrawalUnlocksAt, spendLimit } = await readBalance(
          s.buyerChain(),
          address,
        );
        const { limit, periodSeconds, pending } = spendLimit;
        return { escrow, wallet, pendingWithdrawal, withdrawalUnlocksAt, limit, periodSeconds, pending };
      };

      const moves = [
        ["set_spend_limit", { limit: "0", periodSeconds: 0 }],
        ["request_withdrawal", { amount: "100000" }],
        ["deposit", { amount: "400000" }],
      ] as const;

      it("a client that declines: each asks once, answers confirmation_declined, and nothing moves on chain", async function () {
        const buyer = await limitedBuyer();
        const declining = user({ action: "decline" });
        const { asked } = declining;
        const client = await connect(buyer.key, { SPEND_CONFIRM_ABOVE: "1" }, declining);
        // Tightening needs no yes: it only makes debits harder.
        const tighter = await callTool(client, "set_spend_limit", { limit: "4000", periodSeconds: 3600 });
        expect(tighter.isError, JSON.stringify(tighter.data)).to.equal(false);
        expect(tighter.data).to.include({ inForce: false });
        expect(asked).to.have.length(0);
        const before = await onChain(buyer.address);
        for (const [name, args] of moves) {
          const refused = await callTool(client, name, args);
          expect(refused.error?.code, `${name}: ${JSON.stringify(refused.data)}`).to.equal("confirmation_declined");
          expect(refused.error?.message).to.match(/nothing was signed or sent/);
        }
        expect(asked).to.have.length(3);
        expect(asked[0]?.message).to.match(/spend limit to no on-chain spend limit/);
        expect(asked[0]?.message).to.include("in force now: 5000 base units (0.005 USDC) per 3600 s");
        expect(asked[0]?.message).to.include("cancels the requested change to 4000 base units");
        expect(asked[1]?.message).to.include("100000 base units (0.1 USDC)");
        expect(asked[2]?.message).to.include("400000 base units (0.4 USDC)");
        expect(await onChain(buyer.address)).to.deep.equal(before);
      });

      it("a client without elicitation: confirmation_unavailable naming SPEND_CONFIRM_ABOVE, and nothing moves", async function () {
        const buyer = await limitedBuyer();
        const before = await onChain(buyer.address);
        const client = await connect(buyer.key, { SPEND_CONFIRM_ABOVE: "1" });
        for (const [name, args] of moves) {
          const refused = await callTool(client, name, args);
          expect(refused.error?.code, `${name}: ${JSON.stringify(refused.data)}`).to.equal("confirmation_unavailable");
          expect(refused.error?.message).to.include("SPEND_CONFIRM_ABOVE").and.to.include("elicitation");
        }
        expect(await onChain(buyer.address)).to.deep.equal(before);
      });

      it("the user accepts: each goes ahead; at or below the threshold nothing is asked", async function () {
        const buyer = await limitedBuyer();
        const accepting = user({ action: "accept", content: { confirm: true } });
        const { asked } = accepting;
        const client = await connect(buyer.key, { SPEND_CONFIRM_ABOVE: "100000" }, accepting);
        expect((await callTool(client, "deposit", { amount: "100000" })).isError).to.equal(false);
        expect(asked).to.have.length(0);
        for (const [name, args] of moves) {
          const done = await callTool(client, name, args);
          expect(done.isError, `${name}: ${JSON.stringify(done.data)}`).to.equal(false);
        }
        expect(asked).to.have.length(2);
        const after = await onChain(buyer.address);
        expect(after.limit).to.equal(0n);
        expect(after.wallet).to.equal(500_000n);
      });
    });
  });
});
