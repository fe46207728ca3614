import { expect } from "chai";
import type { GateStack, TestResource } from "../../../testkit/gate/gateStack.ts";
import { call, payEscrow, paymentHeader, startGateStack, startTestResource } from "../../../testkit/gate/gateStack.ts";

/**
 * A second authorization that reuses a settled nonce is not the same payment. Before the fix the gate replayed the
 * first call's stored response to any authorization of the same buyer with that nonce: a buyer (or anyone holding a
 * leaked signing key's old nonces) got a 200 and a receipt for a payment it never made (another `maxAmount`,
 * another window, another body), which breaks "no 200 without exactly one debit" per distinct payment. PROTOCOL.md
 * replays only the same payment: now only a byte-identical authorization and signature get the replay.
 */
describe("a buyer cannot get a settled call's response with another authorization that reuses its nonce", function () {
  let stack: GateStack;
  let echo: TestResource;

  before(async function () {
    stack = await startGateStack();
    echo = await startTestResource(stack, { slug: "replay-echo" });
  });

  after(async function () {
    await echo?.close();
    await stack?.close();
  });

  it("answers 402 nonce_used to another maxAmount or window with the settled nonce, and replays only the same bytes", async function () {
    const first = await payEscrow(stack, echo);
    const paid = await call(echo.callUrl, { n: 1 }, { "X-PAYMENT": paymentHeader(first) });
    expect(paid.status).to.equal(200);
    const balance = await stack.escrowBalance();

    const nonce = first.authorization.nonce;
    const variants = {
      "a higher maxAmount": await payEscrow(stack, echo, { nonce, maxAmount: echo.cap + 1n }),
      "a later validBefore": await payEscrow(stack, echo, {
        nonce,
        validBefore: BigInt(first.authorization.validBefore) + 1n,
      }),
    };
    for (const [what, payload] of Object.entries(variants)) {
      const answer = await call(echo.callUrl, { n: 2 }, { "X-PAYMENT": paymentHeader(payload) });
      expect(answer.status, `${what}: ${answer.text.slice(0, 200)}`).to.equal(402);
      expect(answer.body.error, what).to.equal("nonce_used");
      expect(answer.headers.get("payment-response"), what).to.equal(null);
    }

    const again = await call(echo.callUrl, { n: 1 }, { "X-PAYMENT": paymentHeader(first) });
    expect(again.status).to.equal(200);
    expect(again.body).to.deep.equal(paid.body);
    expect(again.headers.get("payment-response")).to.equal(paid.headers.get("payment-response"));
    expect(await stack.escrowBalance(), "nothing debited by the replays").to.equal(balance);
    expect(echo.runs()).to.equal(1);
  });
});
