import { decodePaymentRequiredHeader, decodePaymentSignatureHeader } from "@x402/core/http";
import { registerExactEvmScheme } from "@x402/evm/exact/client";
import { decodePaymentResponseHeader, wrapFetchWithPayment, x402Client } from "@x402/fetch";
import { expect } from "chai";
import { readBooks } from "../../../testkit/facilitator/readBooks.ts";
import type { GateStack, TestResource } from "../../../testkit/gate/gateStack.ts";
import { call, startGateStack, startTestResource } from "../../../testkit/gate/gateStack.ts";
import { until } from "../../../testkit/until.ts";
import { decodeBase64Json } from "../../protocol/base64.ts";
import { BASE_FEE_FLOOR_WEI, SETTLEMENT_GAS_EXACT, SETTLEMENT_MARGIN_BPS } from "../../protocol/constants.ts";
import { priceFloor } from "../../protocol/priceFloor.ts";
import type { DiscoveryExtension } from "../../protocol/schemas/discoveryExtension.ts";
import { quoteSchema } from "../../protocol/schemas/quote.ts";
import { receiptSchema } from "../../protocol/schemas/receipt.ts";

const NETWORK = "eip155:5042002";

describe("gate: a stock x402 v2 client (@x402/fetch + @x402/evm)", function () {
  let stack: GateStack;
  let echo: TestResource;

  before(async function () {
    stack = await startGateStack();
    echo = await startTestResource(stack, { slug: "echo" });
    await stack.chain.contracts.token.write.mint([stack.buyer.address, 1_000_000n]);
  });

  after(async function () {
    await echo?.close();
    await stack?.close();
  });

  /** The requests the stock client sent and the answers it got, as they crossed the wire. */
  let exchanges: { request: Request; response: Response }[] = [];
  const recordingFetch: typeof fetch = async (input, init) => {
    const request = new Request(input, init);
    const response = await fetch(request.clone());
    exchanges.push({ request, response: response.clone() });
    return response;
  };
  const client = (spendControls?: Parameters<x402Client["setSpendControls"]>[0]) => {
    const x402 = new x402Client();
    registerExactEvmScheme(x402, { signer: stack.buyer, networks: [NETWORK] });
    if (spendControls !== undefined) x402.setSpendControls(spendControls);
    exchanges = [];
    return wrapFetchWithPayment(recordingFetch, x402);
  };
  const post = (paidFetch: typeof fetch, body: unknown) =>
    paidFetch(echo.callUrl, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });

  it("pays the exact entry and gets a successful PAYMENT-RESPONSE", async function () {
    const before = await stack.chain.contracts.token.read.balanceOf([stack.buyer.address]);
    const paidFetch = client({
      allowedAssets: [{ network: NETWORK, asset: stack.chain.addresses.token, maxAmountPerPayment: "50000" }],
    });
    const response = await post(paidFetch, { hello: "x402" });
    expect(response.status).to.equal(200);
    expect(await response.json()).to.deep.equal({ echo: { hello: "x402" } });
    const settle = decodePaymentResponseHeader(response.headers.get("PAYMENT-RESPONSE")!);
    expect(settle).to.deep.include({ success: true, network: NETWORK, payer: stack.buyer.address });
    const receipt = receiptSchema.parse(decodeBase64Json(response.headers.get("X-PAYMENT-RESPONSE")!));
    expect(receipt).to.deep.include({ scheme: "exact", amount: "50000", payTo: echo.resourceId });
    const tx = await stack.chain.publicClient.getTransactionReceipt({ hash: receipt.transaction! });
    expect(tx.status).to.equal("success");
    expect(await stack.chain.contracts.token.read.balanceOf([stack.buyer.address])).to.equal(before - 50_000n);
  });

  it("reads the schemas from the quote's discovery extension and echoes them in its payment, which the gate takes", async function () {
    const paidFetch = client({
      allowedAssets: [{ network: NETWORK, asset: stack.chain.addresses.token, maxAmountPerPayment: "50000" }],
    });
    const response = await post(paidFetch, { hello: "bazaar" });
    expect(response.status).to.equal(200);
    const [unpaid, paid] = exchanges;
    const quoted = decodePaymentRequiredHeader(unpaid!.response.headers.get("PAYMENT-REQUIRED")!);
    const bazaar = quoted.extensions?.bazaar as DiscoveryExtension;
    expect(bazaar.schema.properties.input.properties.body).to.deep.equal({ type: "object" });
    expect(bazaar.schema.properties.output.properties.example).to.deep.equal({ type: "object" });
    const payment = decodePaymentSignatureHeader(paid!.request.headers.get("PAYMENT-SIGNATURE")!);
    expect(payment.extensions).to.deep.equal({ bazaar });
  });

  it("is stopped by its own spend controls when our asset is not allowed, or capped below the price", async function () {
    let error: unknown;
    try {
      await post(client(), { hello: "x402" });
    } catch (e) {
      error = e;
    }
    expect((error as Error).message).to.match(/spendControls/);
    error = undefined;
    try {
      await post(
        client({
          allowedAssets: [{ network: NETWORK, asset: stack.chain.addresses.token, maxAmountPerPayment: "49999" }],
        }),
        { hello: "x402" },
      );
    } catch (e) {
      error = e;
    }
    expect((error as Error).message).to.match(/maxAmountPerPayment/);
  });

  // Last: it leaves the chain's base fee at the test network's floor, where a cap of 50,000 no longer pays for a
  // settleExact (until it decays again).
  it("pays the raised exact quote where the cap would not pay for its settlement, and the treasury share covers the relayer's gas", async function () {
    const cheap = await startTestResource(stack, { slug: "cheap-exact", cap: 10_000n });
    try {
      await stack.chain.setBaseFee(BASE_FEE_FLOOR_WEI);
      const least = priceFloor({
        gasPerDebit: SETTLEMENT_GAS_EXACT,
        baseFeeWei: BASE_FEE_FLOOR_WEI,
        feeBps: await stack.chain.contracts.escrow.read.feeBps(),
        marginBps: SETTLEMENT_MARGIN_BPS,
      }).minimumBase;
      // The gate reads the facilitator's least exact amount at most every EXACT_FLOOR_REFRESH_MS.
      const quoted = await until(async () => {
        const answer = await call(cheap.callUrl, { hello: "x402" });
        const exact = quoteSchema.parse(answer.body).accepts[1];
        return exact && BigInt(exact.amount) > cheap.cap ? exact : undefined;
      }, 10_000);
      expect(quoted).to.deep.include({ amount: least.toString(), maxAmountRequired: least.toString() });
      expect(quoteSchema.parse((await call(cheap.callUrl, {})).body).accepts[0].amount, "the escrow entry").to.equal(
        "10000",
      );

      const booksBefore = await readBooks(stack.facilitator.url);
      const before = await stack.chain.contracts.token.read.balanceOf([stack.buyer.address]);
      const paidFetch = client({
        allowedAssets: [
          { network: NETWORK, asset: stack.chain.addresses.token, maxAmountPerPayment: least.toString() },
        ],
      });
      const response = await paidFetch(cheap.callUrl, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ hello: "raised" }),
      });
      expect(response.status).to.equal(200);
      const receipt = receiptSchema.parse(decodeBase64Json(response.headers.get("PAYMENT-RESPONSE")!));
      expect(receipt).to.deep.include({ scheme: "exact", amount: least.toString(), payTo: cheap.resourceId });
      expect(await stack.chain.contracts.token.read.balanceOf([stack.buyer.address])).to.equal(before - least);
      const books = await until(async () => {
        const now = await readBooks(stack.facilitator.url);
        return now.transactions > booksBefore.transactions ? now : undefined;
      });
      const cost = books.cost - booksBefore.cost;
      const treasury = books.treasury - booksBefore.treasury;
      expect(cost > 0n, "the relayer paid gas").to.equal(true);
      expect(treasury >= cost, `treasury ${treasury} against the relayer's cost ${cost}`).to.equal(true);
    } finally {
      await cheap.close();
    }
  });
});
