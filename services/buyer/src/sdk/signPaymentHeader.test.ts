import { expect } from "chai";
import { getJson } from "../../../../testkit/facilitator/startFacilitator.ts";
import type { GateStack, TestResource } from "../../../../testkit/gate/gateStack.ts";
import { startGateStack, startTestResource } from "../../../../testkit/gate/gateStack.ts";
import { until } from "../../../../testkit/until.ts";
import { decodeBase64Json } from "../../../protocol/base64.ts";
import { bitmapNonceIndex } from "../../../protocol/bitmapNonce.ts";
import { BASE_FEE_FLOOR_WEI, HEADER_X_PAYMENT } from "../../../protocol/constants.ts";
import { buyerChain } from "./buyerChain.ts";
import { signPaymentHeader } from "./signPaymentHeader.ts";

/**
 * The README's "Or by hand" paid call: `signHeader.ts` prints this header and curl sends it. The resource is priced as
 * the `npm start` samples are (base 10,000), which at the test network's base fee pays for a debit of a bitmap nonce
 * and not for one of a random nonce, so a header signed with a random nonce is refused at verify.
 */
describe("signPaymentHeader", function () {
  this.timeout(120_000);
  let stack: GateStack;
  let echo: TestResource;

  before(async function () {
    stack = await startGateStack();
    echo = await startTestResource(stack, {
      slug: "echo",
      base: 10_000n,
      cap: 50_000n,
      handler: async (call) => ({
        status: 200,
        contentType: "application/json",
        body: Buffer.from(JSON.stringify({ echo: call.body })),
      }),
    });
    await stack.chain.setBaseFee(BASE_FEE_FLOOR_WEI);
    await until(
      async () =>
        (await getJson(`${stack.facilitator.url}/pricing/exact`)).body.baseFeeWei === BASE_FEE_FLOOR_WEI.toString() ||
        undefined,
      10_000,
      "the facilitator reading the test network's base fee",
    );
  });

  after(async function () {
    await echo?.close();
    await stack?.close();
  });

  it("signs the registered cap with a bitmap nonce, so a hand-made paid call to a sample-priced resource is answered 200", async function () {
    const chain = buyerChain({ rpcUrl: stack.chain.rpcUrl, escrow: stack.chain.addresses.escrow });
    const header = await signPaymentHeader({ chain, account: stack.buyer, resourceId: echo.resourceId });
    const payload = decodeBase64Json(header) as { authorization: { nonce: `0x${string}`; maxAmount: string } };
    expect(bitmapNonceIndex(payload.authorization.nonce), "a bitmap nonce").to.not.equal(null);
    expect(payload.authorization.maxAmount).to.equal("50000");
    const answer = await fetch(echo.callUrl, {
      method: "POST",
      headers: { "content-type": "application/json", [HEADER_X_PAYMENT]: header },
      body: JSON.stringify({ hi: 1 }),
    });
    const text = await answer.text();
    expect(answer.status, text).to.equal(200);
    expect(JSON.parse(text)).to.deep.equal({ echo: { hi: 1 } });
  });

  it("gives each header of a process a nonce of its own", async function () {
    const chain = buyerChain({ rpcUrl: stack.chain.rpcUrl, escrow: stack.chain.addresses.escrow });
    const nonceOf = async () =>
      (
        decodeBase64Json(await signPaymentHeader({ chain, account: stack.buyer, resourceId: echo.resourceId })) as {
          authorization: { nonce: string };
        }
      ).authorization.nonce;
    expect(await nonceOf()).to.not.equal(await nonceOf());
  });
});
