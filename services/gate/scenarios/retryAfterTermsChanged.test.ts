import { expect } from "chai";
import { parseGwei } from "viem";
import { ROLE } from "../../../testkit/chain/localChain.ts";
import type { GateStack, TestResource } from "../../../testkit/gate/gateStack.ts";
import {
  call,
  payEscrow,
  payExact,
  paymentHeader,
  poorAccount,
  startGateStack,
  startTestResource,
} from "../../../testkit/gate/gateStack.ts";
import { until } from "../../../testkit/until.ts";

/**
 * A paid call whose answer was lost is retried with the same payment, and the gate answers it with the stored
 * response (PROTOCOL.md: the same payment again is never charged twice and never left without its answer). Before the
 * fix the facilitator's verify refused the retry for what had changed on chain since the call was settled (the
 * resource deactivated, its cap raised above the signed maximum, the base fee risen past what the price pays for, the
 * fee above the relayer's cap) before it looked at the nonce, so the gate answered 402 (or 503) with a new quote: the
 * buyer had paid for an answer it could no longer get from the gate. Each case first shows that a new payment is
 * refused (a probe from an account with nothing in the escrow, refused for the new condition before its balance), then
 * retries the settled payment: 200 with the same body and receipt, nothing debited again, the handler not run again.
 */
describe("a settled call retried after its resource's terms or the fee changed gets its stored answer", function () {
  this.timeout(120_000);
  let stack: GateStack;
  let baseFee: bigint;
  const creator = () => stack.chain.wallets[ROLE.creator]!.account;

  before(async function () {
    // A relayer fee cap well above the fees below except the last case's.
    stack = await startGateStack({ facilitatorEnv: { MAX_FEE_PER_GAS: parseGwei("1000").toString() } });
    baseFee = (await stack.chain.publicClient.getBlock()).baseFeePerGas ?? parseGwei("1");
  });

  after(async function () {
    await stack?.close();
  });

  afterEach(async function () {
    await stack.chain.setBaseFee(baseFee);
  });

  /**
   * Pays one call of `resource` (escrow, unless `exact`) once a new payment meets nothing but the buyer's balance (the
   * facilitator's caches have seen the last case's fee put back), and returns what a retry must get back.
   */
  async function paidCall(resource: TestResource, exact = false) {
    await newPaymentsAnswered(resource, 402, "insufficient_balance");
    if (exact) await stack.chain.contracts.token.write.mint([stack.buyer.address, resource.cap]);
    const payload = exact ? await payExact(stack, resource) : await payEscrow(stack, resource);
    const payment = paymentHeader(payload);
    const body = { n: exact ? "exact" : 1 };
    const paid = await call(resource.callUrl, body, { "X-PAYMENT": payment });
    expect(paid.status, paid.text).to.equal(200);
    const tokens = () => stack.chain.contracts.token.read.balanceOf([stack.buyer.address]);
    return {
      payload,
      payment,
      body,
      paid,
      funds: { escrow: await stack.escrowBalance(), tokens: await tokens() },
      runs: resource.runs(),
      tokens,
    };
  }

  /**
   * Waits until a new payment from an account with nothing in the escrow is answered `status` and `code`: refused for
   * the change just made once the facilitator's caches have seen it, else for its balance.
   */
  async function newPaymentsAnswered(resource: TestResource, status: number, code: string) {
    const probe = paymentHeader(await payEscrow(stack, resource, { account: poorAccount() }));
    await until(
      async () => {
        const answer = await call(resource.callUrl, { n: 1 }, { "X-PAYMENT": probe });
        // A 402 quote names its reason; any other refusal is { error: { code, message } }.
        const answered = typeof answer.body.error === "string" ? answer.body.error : answer.body.error?.code;
        return answer.status === status && answered === code ? answer : undefined;
      },
      30_000,
      `a new payment refused ${status} ${code}`,
    );
  }

  /** The retry of the settled call: its stored answer, and nothing charged or run again. */
  async function expectReplayed(resource: TestResource, settled: Awaited<ReturnType<typeof paidCall>>) {
    const again = await call(resource.callUrl, settled.body, { "X-PAYMENT": settled.payment });
    expect(again.status, again.text).to.equal(200);
    expect(again.body).to.deep.equal(settled.paid.body);
    expect(again.headers.get("x-payment-response")).to.equal(settled.paid.headers.get("x-payment-response"));
    expect(await stack.escrowBalance(), "nothing debited again").to.equal(settled.funds.escrow);
    expect(await settled.tokens(), "no token moved again").to.equal(settled.funds.tokens);
    expect(resource.runs(), "the handler not run again").to.equal(settled.runs);
  }

  it("the base fee rose past what the price pays for: a new payment is refused, the retry replayed", async function () {
    const echo = await startTestResource(stack, { slug: "fee-rise-echo" });
    try {
      const settled = await paidCall(echo);
      await stack.chain.setBaseFee(parseGwei("50"));
      await newPaymentsAnswered(echo, 402, "invalid_payload");
      await expectReplayed(echo, settled);
    } finally {
      await echo.close();
    }
  });

  it("an exact payment, after the fee rose past what its amount pays for", async function () {
    const echo = await startTestResource(stack, { slug: "exact-fee-rise-echo" });
    try {
      const settled = await paidCall(echo, true);
      await stack.chain.setBaseFee(parseGwei("50"));
      await newPaymentsAnswered(echo, 402, "invalid_payload");
      const exactProbe = await call(
        echo.callUrl,
        { n: "exact" },
        { "X-PAYMENT": paymentHeader(await payExact(stack, echo, { account: poorAccount() })) },
      );
      expect(exactProbe.status, "a new exact payment of the old amount").to.equal(402);
      await expectReplayed(echo, settled);
    } finally {
      await echo.close();
    }
  });

  it("the chain's fee above the relayer's cap: a new payment is 503, the retry replayed", async function () {
    const echo = await startTestResource(stack, { slug: "fee-cap-echo" });
    try {
      const settled = await paidCall(echo);
      await stack.chain.setBaseFee(parseGwei("2000"));
      await newPaymentsAnswered(echo, 503, "fee_above_cap");
      await expectReplayed(echo, settled);
    } finally {
      await echo.close();
    }
  });

  it("the creator raised the cap above the signed maximum: a new payment at the old cap is over_cap, the retry replayed", async function () {
    const echo = await startTestResource(stack, { slug: "cap-raised-echo" });
    try {
      const settled = await paidCall(echo);
      await stack.chain.contracts.registry.write.updatePricing(
        [echo.resourceId, { base: 1_000n, perKB: 200n, max: echo.cap * 2n }],
        { account: creator() },
      );
      await newPaymentsAnswered(echo, 402, "over_cap");
      await expectReplayed(echo, settled);
    } finally {
      await echo.close();
    }
  });

  it("the resource was deactivated: a new payment is refused, the retry replayed", async function () {
    const echo = await startTestResource(stack, { slug: "deactivated-echo" });
    try {
      const settled = await paidCall(echo);
      await stack.chain.contracts.registry.write.deactivate([echo.resourceId], { account: creator() });
      await newPaymentsAnswered(echo, 402, "invalid_payload");
      await expectReplayed(echo, settled);
      // Another authorization of the same nonce is still refused, not replayed.
      const other = await payEscrow(stack, echo, {
        nonce: settled.payload.authorization.nonce,
        validBefore: BigInt(Math.floor(Date.now() / 1000) + 700),
      });
      const refused = await call(echo.callUrl, settled.body, { "X-PAYMENT": paymentHeader(other) });
      expect(refused.status).to.equal(402);
      expect(refused.headers.get("x-payment-response")).to.equal(null);
    } finally {
      await echo.close();
    }
  });
});
