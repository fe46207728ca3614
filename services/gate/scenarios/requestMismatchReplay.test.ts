import { expect } from "chai";
import type { GateStack, TestResource } from "../../../testkit/gate/gateStack.ts";
import { call, payEscrow, paymentHeader, startGateStack, startTestResource } from "../../../testkit/gate/gateStack.ts";

/**
 * The same `X-PAYMENT` replayed with another request body. A replay of a settled payment is answered from the stored
 * result without running the handler; before the fix the gate never looked at the request, so a payment made for one
 * body answered any other body with the first body's response and receipt: a buyer (or anyone who saw the header)
 * got a 200 for a request it never paid for, and a client that reused a header by mistake got a wrong answer that
 * looked right. Now each reservation is bound to the request's hash (method, path, body bytes), and a replay of
 * another request is 422 `request_mismatch`, as an idempotency key reused with other parameters.
 */
describe("replaying a settled payment with another request body", function () {
  let stack: GateStack;
  let echo: TestResource;

  before(async function () {
    stack = await startGateStack();
    echo = await startTestResource(stack, { slug: "mismatch-echo" });
  });

  after(async function () {
    await echo?.close();
    await stack?.close();
  });

  it("is refused 422 request_mismatch without a run or a debit, and the same body still replays", async function () {
    const payment = await payEscrow(stack, echo);
    const header = { "X-PAYMENT": paymentHeader(payment) };
    const paid = await call(echo.callUrl, { n: 1 }, header);
    expect(paid.status).to.equal(200);
    const balance = await stack.escrowBalance();

    for (const body of [{ n: 2 }, '{"n": 1}']) {
      const other = await call(echo.callUrl, body, header);
      expect(other.status, other.text.slice(0, 200)).to.equal(422);
      expect(other.body.error.code).to.equal("request_mismatch");
      expect(other.headers.get("payment-response")).to.equal(null);
    }

    const again = await call(echo.callUrl, { n: 1 }, header);
    expect(again.status).to.equal(200);
    expect(again.body).to.deep.equal(paid.body);
    expect(again.headers.get("payment-response")).to.equal(paid.headers.get("payment-response"));
    expect(echo.runs(), "the handler ran once").to.equal(1);
    expect(await stack.escrowBalance(), "nothing debited by the replays").to.equal(balance);
  });
});
