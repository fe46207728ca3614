import { expect } from "chai";
import type { Hex } from "viem";
import { manualClock, postJson } from "../../../testkit/facilitator/startFacilitator.ts";
import type { GateStack } from "../../../testkit/gate/gateStack.ts";
import { call, payEscrow, paymentHeader, startGateStack, startTestResource } from "../../../testkit/gate/gateStack.ts";
import { until } from "../../../testkit/until.ts";
import { BuyerError } from "../../buyer/src/sdk/buyerError.ts";
import { recoverResult } from "../../buyer/src/sdk/recoverResult.ts";
import { RESERVATION_MARGIN_SECONDS } from "../../facilitator/verifyPayment.ts";
import { decodeBase64Json } from "../../protocol/base64.ts";
import { receiptSchema } from "../../protocol/schemas/receipt.ts";
import type { Handler } from "../handler.ts";

/** A handler answering the request's body as its own, counting its runs; `during` runs before it answers. */
function counted(runs: { count: number }, during?: () => Promise<void>): Handler {
  return async (handlerCall) => {
    runs.count++;
    await during?.();
    return { status: 200, contentType: "application/json", body: Buffer.from(JSON.stringify(handlerCall.body)) };
  };
}

/** What the buyer SDK's `recoverResult` throws for the stack's buyer's payment `nonce` (undefined: it returned). */
async function recoveryError(stack: GateStack, nonce: Hex): Promise<BuyerError | undefined> {
  const payer = stack.buyer.address;
  try {
    await recoverResult({ facilitatorUrl: stack.facilitator.url, idemKey: nonce, payer });
    return undefined;
  } catch (error) {
    expect(error).to.be.instanceOf(BuyerError);
    return error as BuyerError;
  }
}

/**
 * A payment in progress lives on in the facilitator, not only in the gate that took it. Before the fix a retry that
 * reached a gate without it (another instance of the resource, or the same gate restarted) got 402 `nonce_used`
 * while the first gate still served the call or while its settlement waited for the chain, and the buyer SDK gave the
 * payment up as payment_unknown: charged, in the second case, for a response it never received unless it went to
 * recover it. Now `GET /results` answers such a payment 202 (`reserved` or `pending`), and the gate tells the buyer
 * 409 `in_progress` or 503 `settlement_pending`, as the first gate would, until the result is there. The facilitator's
 * clock stands still, so its retrier waits until the test moves it.
 */
describe("a retry that reaches a gate not holding its payment (another instance, or restarted) is told to wait, then gets the result", function () {
  const clock = manualClock();
  let stack: GateStack;

  before(async function () {
    stack = await startGateStack({ clock });
  });

  after(async function () {
    await stack?.close();
  });

  it("a copy sent to another instance while the first serves the call is 409 in_progress, then gets the replay", async function () {
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const runs = { count: 0 };
    const first = await startTestResource(stack, { slug: "twin-echo", handler: counted(runs, () => held) });
    const second = await startTestResource(stack, {
      slug: "twin-echo",
      resourceId: first.resourceId,
      handler: counted(runs),
    });
    try {
      const payload = await payEscrow(stack, first);
      const header = paymentHeader(payload);
      const nonce = payload.authorization.nonce;
      const before = await stack.escrowBalance();
      const served = call(first.callUrl, { n: 1 }, { "X-PAYMENT": header });
      await until(() => (runs.count === 1 ? true : undefined));
      const copy = await call(second.callUrl, { n: 1 }, { "X-PAYMENT": header });
      expect(copy.status, copy.text).to.equal(409);
      expect(copy.body.error.code).to.equal("in_progress");
      expect(copy.headers.get("retry-after")).to.match(/^\d+$/);
      expect((await call(second.callUrl, { n: 2 }, { "X-PAYMENT": header })).status, "another body").to.equal(422);
      const recovery = await recoveryError(stack, nonce);
      expect(recovery?.code, recovery?.message).to.equal("in_progress");
      release();
      const answer = await served;
      expect(answer.status, answer.text).to.equal(200);
      const replay = await call(second.callUrl, { n: 1 }, { "X-PAYMENT": header });
      expect(replay.status, replay.text).to.equal(200);
      expect(replay.headers.get("payment-response")).to.equal(answer.headers.get("payment-response"));
      const receipt = receiptSchema.parse(decodeBase64Json(answer.headers.get("payment-response")!));
      expect(await stack.escrowBalance(), "debited once").to.equal(before - BigInt(receipt.amount));
      expect(runs.count, "run once").to.equal(1);
    } finally {
      release();
      await first.close();
      await second.close();
    }
  });

  it("after a restart, a retry while the settlement waits for the chain is 503 settlement_pending, then gets the replay once mined", async function () {
    // The chain goes away while the handler runs: its settle cannot complete.
    const runs = { count: 0 };
    const first = await startTestResource(stack, {
      slug: "restart-echo",
      handler: counted(runs, () => stack.chain.rpc.stop()),
    });
    const payload = await payEscrow(stack, first);
    const header = paymentHeader(payload);
    const nonce = payload.authorization.nonce;
    const before = await stack.escrowBalance();
    try {
      const pending = await call(first.callUrl, { n: 1 }, { "X-PAYMENT": header });
      expect(pending.status, pending.text).to.equal(503);
      expect(pending.body.error.code).to.equal("settlement_pending");
    } finally {
      await first.close();
      await stack.chain.rpc.resume();
    }

    // The resource's gate anew, without the first one's memory of the settlement.
    const again = await startTestResource(stack, {
      slug: "restart-echo",
      resourceId: first.resourceId,
      handler: counted(runs),
    });
    try {
      const retry = await call(again.callUrl, { n: 1 }, { "X-PAYMENT": header });
      expect(retry.status, retry.text).to.equal(503);
      expect(retry.body.error.code).to.equal("settlement_pending");
      expect(retry.headers.get("retry-after")).to.match(/^\d+$/);
      // The same payment for another request, and another authorization of the nonce, are refused as before.
      expect((await call(again.callUrl, { n: 2 }, { "X-PAYMENT": header })).status).to.equal(422);
      const reuse = await payEscrow(stack, first, { nonce, maxAmount: first.cap + 1n });
      const refused = await call(again.callUrl, { n: 1 }, { "X-PAYMENT": paymentHeader(reuse) });
      expect(refused.status, refused.text).to.equal(402);
      expect(refused.body.error).to.equal("nonce_used");

      // What the facilitator says of it, to the gate and to the buyer's recovery.
      const payer = stack.buyer.address;
      const asked = await fetch(`${stack.facilitator.url}/results/${nonce}?payer=${payer}`);
      expect(asked.status).to.equal(202);
      expect(asked.headers.get("retry-after")).to.match(/^\d+$/);
      const told = (await asked.json()) as Record<string, unknown>;
      expect(told).to.include({ idemKey: nonce.toLowerCase(), settlement: "pending" });
      const { scheme, authorization, signature } = payload;
      expect(told.payment).to.deep.equal({ scheme, authorization, signature });
      expect((await fetch(`${stack.facilitator.url}/results/${nonce}`)).status, "the only payer of it").to.equal(202);
      const recovery = await recoveryError(stack, nonce);
      expect(recovery?.code, recovery?.message).to.equal("settlement_pending");

      // The facilitator's retrier mines the debit once its backoff has passed; the retry then gets the first response.
      clock.advance(60);
      const settled = await until(async () => {
        const answer = await call(again.callUrl, { n: 1 }, { "X-PAYMENT": header });
        if (answer.status === 200) return answer;
        expect(answer.status, answer.text).to.equal(503);
        return undefined;
      }, 60_000);
      expect(settled.body).to.deep.equal({ n: 1 });
      const receipt = receiptSchema.parse(decodeBase64Json(settled.headers.get("payment-response")!));
      expect(await stack.escrowBalance(), "debited once").to.equal(before - BigInt(receipt.amount));
      expect(runs.count, "no retry ran the handler").to.equal(1);
    } finally {
      await again.close();
    }
  });
  it("a reservation past its end is open no longer: GET /results is 404, and the gate does not answer in_progress", async function () {
    const runs = { count: 0 };
    const resource = await startTestResource(stack, { slug: "stale-echo", handler: counted(runs) });
    try {
      const payload = await payEscrow(stack, resource);
      const nonce = payload.authorization.nonce;
      const results = `${stack.facilitator.url}/results/${nonce}?payer=${stack.buyer.address}`;
      // Reserved by a gate that then went away without settling or releasing it.
      const verified = await postJson(`${stack.facilitator.url}/verify`, {
        paymentPayload: payload,
        resourceId: resource.resourceId,
        maxTimeoutSeconds: 60,
      });
      expect(verified.body.isValid, JSON.stringify(verified.body)).to.equal(true);
      expect((await fetch(results)).status).to.equal(202);
      clock.advance(60 + RESERVATION_MARGIN_SECONDS + 1);
      expect((await fetch(results)).status, "past the reservation's end").to.equal(404);
      const retry = await call(resource.callUrl, { n: 1 }, { "X-PAYMENT": paymentHeader(payload) });
      expect(retry.status, retry.text).not.to.equal(409);
    } finally {
      await resource.close();
    }
  });
});
