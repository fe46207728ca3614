import { Ajv2020 } from "ajv/dist/2020.js";
import { expect } from "chai";
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
import { sleep } from "../../../testkit/sleep.ts";
import { until } from "../../../testkit/until.ts";
import { signEscrowPayment } from "../../buyer/src/sdk/signPayment.ts";
import { sampleDeployment } from "../../host/samples/sampleDeployment.ts";
import { decodeBase64Json } from "../../protocol/base64.ts";
import { meteredPrice } from "../../protocol/price.ts";
import { cardTemplateSchema } from "../../protocol/schemas/card.ts";
import { errorBodySchema } from "../../protocol/schemas/errorBody.ts";
import { quoteSchema } from "../../protocol/schemas/quote.ts";
import { receiptSchema } from "../../protocol/schemas/receipt.ts";
import { GATE_STEPS } from "../createGate.ts";

const slowEcho = `export default {
  async fetch(request) {
    const body = await request.json()
    await new Promise((resolve) => setTimeout(resolve, body.delayMs ?? 0))
    return Response.json({ echo: body })
  },
}`;

const expectErrorBody = (body: unknown, code: string) => {
  expect(errorBodySchema.safeParse(body).success, JSON.stringify(body)).to.equal(true);
  expect((body as { error: { code: string } }).error.code).to.equal(code);
};

describe("gate", function () {
  let stack: GateStack;
  let echo: TestResource;
  let strict: TestResource;
  let slow: TestResource;

  before(async function () {
    stack = await startGateStack();
    const stats = sampleDeployment("text-stats", { creator: stack.buyer.address, asset: "", escrow: "" });
    [echo, strict, slow] = [
      await startTestResource(stack, { slug: "echo" }),
      await startTestResource(stack, {
        slug: "text-stats",
        source: stats.source,
        requestSchema: stats.requestSchema,
        sampleRequest: stats.sampleRequest,
        responseSchema: stats.responseSchema,
      }),
      await startTestResource(stack, { slug: "slow-echo", source: slowEcho }),
    ];
  });

  after(async function () {
    await Promise.all([echo, strict, slow].map((r) => r?.close()));
    await stack?.close();
  });

  const paid = async (resource: TestResource, body: unknown = { hello: "world" }, headerName = "X-PAYMENT") => {
    const payload = await payEscrow(stack, resource);
    return { payload, answer: await call(resource.callUrl, body, { [headerName]: paymentHeader(payload) }) };
  };

  describe("the order of the steps", function () {
    it("runs its middleware in the order of PROTOCOL.md", function () {
      expect(echo.gate.steps).to.deep.equal([
        "errorBodies",
        "cors",
        "freePaths",
        "callRoute",
        "requireJsonContentType",
        "readBody",
        "parseBody",
        "requirePayment",
        "decodePayment",
        "admitCall",
        "reservePayment",
        "releaseOnFailure",
        "runHandler",
        "validateResponse",
        "priceResponse",
        "settleCall",
      ]);
      expect(echo.gate.steps).to.equal(GATE_STEPS);
    });

    it("answers a request that breaks every rule with the earliest step: 415, then 413, then 400, then 402", async function () {
      const huge = "x".repeat(1_048_577);
      const bad = { "X-PAYMENT": "not base64!" };
      expect((await call(echo.callUrl, huge, { "content-type": "text/plain", ...bad })).status).to.equal(415);
      expect((await call(echo.callUrl, huge, bad)).status).to.equal(413);
      expect((await call(echo.callUrl, "{nope", bad)).status).to.equal(400);
      const noPayment = await call(echo.callUrl, { a: 1 });
      expect(noPayment.status).to.equal(402);
      expect(noPayment.body.error).to.equal("payment_required");
      const undecodable = await call(echo.callUrl, { a: 1 }, bad);
      expect(undecodable.body.error).to.equal("invalid_payload");
      expect(echo.runs()).to.equal(0);
    });
  });

  describe("step 1: content type", function () {
    for (const type of [
      "text/plain",
      "application/x-www-form-urlencoded",
      "application/jsonp",
      "application/json; charset=latin1",
    ]) {
      it(`answers 415 to ${type}`, async function () {
        const answer = await call(echo.callUrl, "{}", { "content-type": type });
        expect(answer.status).to.equal(415);
        expectErrorBody(answer.body, "unsupported_media_type");
      });
    }

    for (const coding of ["gzip", "br", "GZIP"]) {
      it(`answers 415 to a body sent with Content-Encoding ${coding} (read as bytes, it was 400 "not UTF-8 JSON")`, async function () {
        const answer = await call(echo.callUrl, "{}", { "content-encoding": coding });
        expect(answer.status).to.equal(415);
        expectErrorBody(answer.body, "unsupported_media_type");
        expect(answer.body.error.message).to.match(/Content-Encoding/);
      });
    }

    it("accepts Content-Encoding identity, in any case", async function () {
      expect((await call(echo.callUrl, "{}", { "content-encoding": "Identity" })).status).to.equal(402);
    });

    for (const type of [
      "application/json; charset=utf-8",
      "application/json; charset=UTF-8",
      "APPLICATION/JSON",
      "Application/Json; Charset=UTF8",
    ]) {
      it(`accepts ${type}: media type and charset in any case (UTF-8 in capitals was 415)`, async function () {
        expect((await call(echo.callUrl, "{}", { "content-type": type })).status).to.equal(402);
      });
    }
  });

  describe("step 2: size limit", function () {
    it("answers 413 to a body over 1 MiB, declared by Content-Length", async function () {
      const answer = await call(echo.callUrl, JSON.stringify({ pad: "x".repeat(1_048_576) }));
      expect(answer.status).to.equal(413);
      expectErrorBody(answer.body, "payload_too_large");
    });

    it("answers 413 to a chunked body that grows past 1 MiB", async function () {
      const chunk = new TextEncoder().encode("x".repeat(65_536));
      let sent = 0;
      const body = new ReadableStream({
        pull(controller) {
          if (sent++ < 20) controller.enqueue(chunk);
          else controller.close();
        },
      });
      const response = await fetch(echo.callUrl, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body,
        duplex: "half",
      } as RequestInit);
      expect(response.status).to.equal(413);
    });

    it("accepts a body of exactly 1 MiB", async function () {
      const body = JSON.stringify({ pad: "" });
      const padded = JSON.stringify({ pad: "x".repeat(1_048_576 - body.length) });
      expect(Buffer.byteLength(padded)).to.equal(1_048_576);
      expect((await call(echo.callUrl, padded)).status).to.equal(402);
    });
  });

  describe("step 3: JSON and request schema", function () {
    const invalid: [string, string][] = [
      ["not JSON", '{"a":'],
      ["a JSON array", "[1,2]"],
      ["a JSON string", '"text"'],
      ["JSON null", "null"],
      ["an empty body", ""],
      ["invalid UTF-8", "\xff\xfe"],
    ];
    for (const [name, body] of invalid) {
      it(`answers 400 to ${name}`, async function () {
        const bytes = name === "invalid UTF-8" ? new Uint8Array([0x7b, 0xff, 0x7d]) : body;
        const answer = await call(echo.callUrl, bytes);
        expect(answer.status).to.equal(400);
        expectErrorBody(answer.body, "invalid_request");
      });
    }

    it("answers 400 to a body that fails the request schema, naming the problem", async function () {
      const answer = await call(strict.callUrl, { text: 42 });
      expect(answer.status).to.equal(400);
      expect(answer.body.error.message).to.match(/\/text must be string/);
      expect((await call(strict.callUrl, { text: "hi", extra: true })).status).to.equal(400);
    });

    it("checks the schema before reserving anything: the same payment still pays for a valid body", async function () {
      const header = paymentHeader(await payEscrow(stack, strict));
      const refused = await call(strict.callUrl, { nope: 1 }, { "X-PAYMENT": header });
      expect(refused.status).to.equal(400);
      const accepted = await call(strict.callUrl, { text: "One fish. Two fish." }, { "X-PAYMENT": header });
      expect(accepted.status).to.equal(200);
      expect(accepted.body).to.deep.include({ words: 4, sentences: 2 });
    });
  });

  describe("step 4: the 402 quote", function () {
    it("answers 402 with the quote in the body and, base64, in PAYMENT-REQUIRED", async function () {
      const answer = await call(echo.callUrl, { hello: "world" });
      expect(answer.status).to.equal(402);
      expect(Object.keys(answer.body)).to.deep.equal(["x402Version", "error", "accepts", "resource", "extensions"]);
      const quote = quoteSchema.parse(answer.body);
      expect(quote.x402Version).to.equal(2);
      expect(quote.error).to.equal("payment_required");
      expect(decodeBase64Json(answer.headers.get("payment-required")!)).to.deep.equal(answer.body);
      const [escrow, exact] = quote.accepts;
      expect(escrow).to.deep.include({
        scheme: "service-escrow",
        network: "eip155:5042002",
        maxAmountRequired: "50000",
        amount: "50000",
        asset: stack.chain.addresses.token,
        escrow: stack.chain.addresses.escrow,
        payTo: echo.resourceId,
        maxTimeoutSeconds: 60,
      });
      expect(escrow.pricing).to.deep.equal({
        model: "metered",
        base: "1000",
        perKB: "200",
        computeMultiplier: 1,
        maxResponseBytes: 65536,
        errorPrice: "0",
      });
      expect(escrow.eip712Domain).to.deep.equal({
        name: "ServiceEscrow",
        version: "1",
        chainId: 5042002,
        verifyingContract: stack.chain.addresses.escrow,
      });
      expect(exact).to.deep.include({
        scheme: "exact",
        payTo: stack.chain.addresses.escrow,
        amount: "50000",
        asset: stack.chain.addresses.token,
      });
      expect(exact!.extra).to.deep.equal({ name: "USDC", version: "2", resourceId: echo.resourceId });
      expect(quote.resource.url).to.equal(echo.callUrl);
    });

    it("publishes the request and response schemas it enforces as the x402 Bazaar discovery extension", async function () {
      const stats = sampleDeployment("text-stats", { creator: stack.buyer.address, asset: "", escrow: "" });
      const answer = await call(strict.callUrl, { text: "Level" });
      expect(answer.status).to.equal(402);
      const { bazaar } = quoteSchema.parse(answer.body).extensions!;
      expect(bazaar.schema.properties.input.properties.body).to.deep.equal(stats.requestSchema);
      expect(bazaar.schema.properties.output.properties.example).to.deep.equal(stats.responseSchema);
      expect(bazaar.info.input).to.deep.equal({
        type: "http",
        method: "POST",
        bodyType: "json",
        body: stats.sampleRequest,
      });
      expect(decodeBase64Json(answer.headers.get("payment-required")!)).to.deep.equal(answer.body);
    });

    it("publishes exactly the request schema it enforces: what the published schema refuses, the gate refuses", async function () {
      const answer = await call(strict.callUrl, { text: "Level" });
      const published = quoteSchema.parse(answer.body).extensions!.bazaar.schema.properties.input.properties.body;
      const validate = new Ajv2020({ strict: false }).compile(published as object);
      for (const body of [
        { text: "ok" },
        { text: "ok", top: 3 },
        { text: 1 },
        {},
        { text: "ok", top: 0 },
        { other: 1 },
      ]) {
        const status = (await call(strict.callUrl, body)).status;
        expect(status, JSON.stringify(body)).to.equal(validate(body) ? 402 : 400);
      }
    });

    it("takes the example call from the card's skills, a response included, when it passes both schemas", async function () {
      const answer = await call(echo.callUrl, { a: 1 });
      const { bazaar } = quoteSchema.parse(answer.body).extensions!;
      expect(bazaar.info.input.body).to.deep.equal({ hello: "world" });
      expect(bazaar.info.output).to.deep.equal({ type: "json", example: { echo: { hello: "world" } } });
    });

    it("takes no money field from the request", async function () {
      const answer = await call(
        echo.callUrl,
        { maxAmountRequired: "1", payTo: `0x${"11".repeat(32)}`, asset: `0x${"22".repeat(20)}` },
        { Host: "evil.example", "X-Forwarded-Host": "evil.example", "X-Max-Amount": "1" },
      );
      const plain = await call(echo.callUrl, {});
      expect(answer.body).to.deep.equal(plain.body);
    });
  });

  describe("step 5: undecodable or misbound payment", function () {
    const refusedAs = async (header: string, name = "X-PAYMENT") => {
      const answer = await call(echo.callUrl, { a: 1 }, { [name]: header });
      expect(answer.status).to.equal(402);
      expect(answer.body.error).to.equal("invalid_payload");
      expect(decodeBase64Json(answer.headers.get("payment-required")!)).to.deep.include({ error: "invalid_payload" });
    };

    it("refuses a header that is not base64 JSON", () => refusedAs("%%%"));
    it("refuses base64 of something that is not a payment", () => refusedAs(paymentHeader({ hello: "world" })));
    it("refuses a payment bound to another resource", async () =>
      refusedAs(paymentHeader(await payEscrow(stack, { resourceId: strict.resourceId, cap: 50_000n }))));
    it("refuses a payment for another network", async () =>
      refusedAs(paymentHeader({ ...(await payEscrow(stack, echo)), network: "eip155:1" })));
    it("refuses an envelope that names another escrow", async () => {
      const p = await payEscrow(stack, echo);
      const envelope = {
        x402Version: 2,
        accepted: { scheme: "service-escrow", network: "eip155:5042002", escrow: stack.chain.addresses.registry },
        payload: { authorization: p.authorization, signature: p.signature },
      };
      await refusedAs(paymentHeader(envelope));
    });
    it("refuses an exact payment to another address", async () =>
      refusedAs(paymentHeader(await payExact(stack, echo, { escrow: stack.chain.addresses.registry }))));
    it("refuses an exact payment of more than the quoted amount", async () =>
      refusedAs(paymentHeader(await payExact(stack, { cap: 60_000n }))));
    it("refuses two different payments in X-PAYMENT and PAYMENT-SIGNATURE", async () => {
      const answer = await call(
        echo.callUrl,
        { a: 1 },
        {
          "X-PAYMENT": paymentHeader(await payEscrow(stack, echo)),
          "PAYMENT-SIGNATURE": paymentHeader(await payEscrow(stack, echo)),
        },
      );
      expect(answer.body.error).to.equal("invalid_payload");
    });
  });

  describe("step 6: verify refuses", function () {
    const refusal = async (payload: unknown) => {
      const answer = await call(echo.callUrl, { a: 1 }, { "X-PAYMENT": paymentHeader(payload) });
      expect(answer.status).to.equal(402);
      quoteSchema.parse(answer.body);
      return answer.body.error as string;
    };
    const now = () => Math.floor(Date.now() / 1000);

    it("insufficient_balance: a buyer with no escrow balance", async function () {
      expect(await refusal(await payEscrow(stack, echo, { account: poorAccount() }))).to.equal("insufficient_balance");
    });
    it("bad_signature: signed by someone else", async function () {
      const p = await payEscrow(stack, echo);
      const forged = await payEscrow(stack, echo, { account: poorAccount() });
      expect(await refusal({ ...p, signature: forged.signature })).to.equal("bad_signature");
    });
    it("expired: validBefore earlier than now + maxTimeoutSeconds", async function () {
      expect(await refusal(await payEscrow(stack, echo, { validBefore: BigInt(now() + 30) }))).to.equal("expired");
    });
    it("expired: validAfter in the future", async function () {
      expect(await refusal(await payEscrow(stack, echo, { validAfter: BigInt(now() + 300) }))).to.equal("expired");
    });
    it("over_cap: a signed cap below the quoted cap", async function () {
      expect(await refusal(await payEscrow(stack, echo, { maxAmount: 49_999n }))).to.equal("over_cap");
    });
    it("nonce_used: a nonce whose reservation was released", async function () {
      const reserved = await payEscrow(stack, echo);
      const post = (path: string, body: unknown) =>
        fetch(`${stack.facilitator.url}${path}`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify(body),
        });
      const verified = await post("/verify", {
        paymentPayload: reserved,
        resourceId: echo.resourceId,
        maxTimeoutSeconds: 60,
      });
      expect(((await verified.json()) as { isValid: boolean }).isValid).to.equal(true);
      await post("/release", { idemKey: reserved.authorization.nonce, resourceId: echo.resourceId });
      expect(await refusal(reserved)).to.equal("nonce_used");
    });
    it("runs no handler for any refusal", function () {
      expect(echo.runs()).to.equal(0);
    });
  });

  describe("step 10: settled", function () {
    it("answers 200 with the handler JSON and the receipt in X-PAYMENT-RESPONSE and PAYMENT-RESPONSE, debiting the metered price once", async function () {
      const before = await stack.escrowBalance();
      const { payload, answer } = await paid(echo, { hello: "world" });
      expect(answer.status).to.equal(200);
      expect(answer.body).to.deep.equal({ echo: { hello: "world" } });
      expect(answer.headers.get("content-type")).to.match(/^application\/json/);
      const header = answer.headers.get("x-payment-response")!;
      expect(answer.headers.get("payment-response")).to.equal(header);
      const receipt = receiptSchema.parse(decodeBase64Json(header));
      const amount = meteredPrice({
        base: 1000n,
        perKB: 200n,
        computeMultiplier: 1,
        cap: 50_000n,
        responseBytes: Buffer.byteLength(answer.text),
      });
      expect(receipt).to.deep.include({
        success: true,
        scheme: "service-escrow",
        payer: stack.buyer.address,
        payTo: echo.resourceId,
        idemKey: payload.authorization.nonce,
        amount: amount.toString(),
      });
      expect(await stack.escrowBalance()).to.equal(before - amount);
      const tx = await stack.chain.publicClient.getTransactionReceipt({ hash: receipt.transaction! });
      expect(tx.status).to.equal("success");
    });

    it("prices by the bytes sent: a larger response costs more", async function () {
      const small = await paid(echo, { a: "x" });
      const large = await paid(echo, { a: "x".repeat(5_000) });
      const amount = (a: typeof small) =>
        BigInt(receiptSchema.parse(decodeBase64Json(a.answer.headers.get("payment-response")!)).amount);
      expect(amount(small)).to.equal(1_200n);
      expect(amount(large)).to.equal(1_000n + 200n * 5n);
    });

    it("accepts the payment in PAYMENT-SIGNATURE", async function () {
      const { answer } = await paid(echo, { via: "payment-signature" }, "PAYMENT-SIGNATURE");
      expect(answer.status).to.equal(200);
      expect(answer.body).to.deep.equal({ echo: { via: "payment-signature" } });
    });

    it("accepts the x402 v2 envelope shape", async function () {
      const quote = (await call(echo.callUrl, {})).body;
      const p = await payEscrow(stack, echo);
      const envelope = {
        x402Version: 2,
        resource: quote.resource,
        accepted: quote.accepts[0],
        payload: { authorization: p.authorization, signature: p.signature },
      };
      const answer = await call(echo.callUrl, { shape: "envelope" }, { "PAYMENT-SIGNATURE": paymentHeader(envelope) });
      expect(answer.status).to.equal(200);
      expect(receiptSchema.parse(decodeBase64Json(answer.headers.get("payment-response")!)).idemKey).to.equal(
        p.authorization.nonce,
      );
    });

    it("takes the exact scheme: the flat amount moves from the buyer’s tokens through the escrow", async function () {
      await stack.chain.contracts.token.write.mint([stack.buyer.address, 100_000n]);
      const before = await stack.chain.contracts.token.read.balanceOf([stack.buyer.address]);
      const payload = await payExact(stack, echo);
      const answer = await call(echo.callUrl, { scheme: "exact" }, { "X-PAYMENT": paymentHeader(payload) });
      expect(answer.status).to.equal(200);
      const receipt = receiptSchema.parse(decodeBase64Json(answer.headers.get("x-payment-response")!));
      expect(receipt).to.deep.include({ scheme: "exact", amount: "50000", payTo: echo.resourceId });
      expect(await stack.chain.contracts.token.read.balanceOf([stack.buyer.address])).to.equal(before - 50_000n);
    });
  });

  describe("step 10: every response the gate accepted settles (each was 503 settlement_pending for good)", function () {
    /** A paid call of `text` (raw JSON) settles: 200, the response as the handler sent it, the same on a retry. */
    async function settlesAsSent(resource: TestResource, text: string, expected: string) {
      const payload = await payEscrow(stack, resource);
      const header = { "X-PAYMENT": paymentHeader(payload) };
      const before = await stack.escrowBalance();
      const first = await call(resource.callUrl, text, header);
      expect(first.status, first.text.slice(0, 300)).to.equal(200);
      expect(first.text).to.equal(expected);
      const receipt = receiptSchema.parse(decodeBase64Json(first.headers.get("payment-response")!));
      expect(await stack.escrowBalance()).to.equal(before - BigInt(receipt.amount));
      const retry = await call(resource.callUrl, text, header);
      expect(retry.status).to.equal(200);
      expect(retry.text, "the stored response, byte for byte").to.equal(expected);
      expect(retry.headers.get("payment-response")).to.equal(first.headers.get("payment-response"));
    }

    it("a string holding \\u0000 or a lone surrogate, which the store refused", async function () {
      const text = '{"nul":"x\\u0000y","lone":"\\ud800","pair":"\\ud83d\\ude00"}';
      await settlesAsSent(echo, text, JSON.stringify({ echo: JSON.parse(text) }));
    });

    it("a key named __proto__, which the facilitator's body parser refused", async function () {
      const text = '{"__proto__":{"polluted":true},"b":2}';
      await settlesAsSent(echo, text, `{"echo":${text}}`);
      expect(({} as { polluted?: boolean }).polluted).to.equal(undefined);
    });

    it("keys in the handler's order, which the store sorted on a retry", async function () {
      const text = '{"zeta":1,"a":2,"mid":{"y":1,"x":2}}';
      await settlesAsSent(echo, text, `{"echo":${text}}`);
    });

    it("a response of 300 KB under the resource's maxResponseBytes, over the facilitator's old 256 KiB body limit", async function () {
      const big = await startTestResource(stack, { slug: "big-echo", maxResponseBytes: 600_000, cap: 200_000n });
      const text = JSON.stringify({ pad: "x".repeat(300_000) });
      await settlesAsSent(big, text, `{"echo":${text}}`);
    });
  });

  describe("step 7: the same payment, already settled", function () {
    it("answers 200 with the stored response and the same receipt, without running the handler or debiting again", async function () {
      const payload = await payEscrow(stack, echo);
      const header = paymentHeader(payload);
      const first = await call(echo.callUrl, { n: 1 }, { "X-PAYMENT": header });
      expect(first.status).to.equal(200);
      const runs = echo.runs();
      const balance = await stack.escrowBalance();
      const again = await call(echo.callUrl, { n: 1 }, { "X-PAYMENT": header });
      expect(again.status).to.equal(200);
      expect(again.body).to.deep.equal(first.body);
      expect(again.headers.get("x-payment-response")).to.equal(first.headers.get("x-payment-response"));
      expect(again.headers.get("payment-response")).to.equal(first.headers.get("payment-response"));
      const viaOtherHeader = await call(echo.callUrl, { n: 1 }, { "PAYMENT-SIGNATURE": header });
      expect(viaOtherHeader.headers.get("payment-response")).to.equal(first.headers.get("payment-response"));
      expect(echo.runs()).to.equal(runs);
      expect(await stack.escrowBalance()).to.equal(balance);
    });

    it("does not hand a stored response to another buyer who reuses the nonce", async function () {
      const payload = await payEscrow(stack, echo);
      expect((await call(echo.callUrl, { secret: "mine" }, { "X-PAYMENT": paymentHeader(payload) })).status).to.equal(
        200,
      );
      const thief = await signEscrowPayment({
        account: poorAccount(),
        escrow: stack.chain.addresses.escrow,
        resourceId: echo.resourceId,
        maxAmount: 50_000n,
        validBefore: BigInt(Math.floor(Date.now() / 1000) + 600),
        nonce: payload.authorization.nonce,
      });
      const answer = await call(echo.callUrl, { secret: "theirs" }, { "X-PAYMENT": paymentHeader(thief) });
      expect(answer.status).to.equal(402);
      expect(answer.text).not.to.contain("mine");
    });
  });

  describe("step 8: the same payment, in flight", function () {
    it("answers a copy 409 in_progress while the first runs; the first settles; the copy then gets the result", async function () {
      const header = paymentHeader(await payEscrow(stack, slow));
      const first = call(slow.callUrl, { delayMs: 1_500 }, { "X-PAYMENT": header });
      await sleep(400);
      const copy = await call(slow.callUrl, { delayMs: 1_500 }, { "X-PAYMENT": header });
      expect(copy.status).to.equal(409);
      expectErrorBody(copy.body, "in_progress");
      const settled = await first;
      expect(settled.status).to.equal(200);
      const later = await call(slow.callUrl, { delayMs: 1_500 }, { "X-PAYMENT": header });
      expect(later.status).to.equal(200);
      expect(later.headers.get("payment-response")).to.equal(settled.headers.get("payment-response"));
      expect(slow.runs()).to.equal(1);
    });
  });

  describe("step 11: settlement that cannot complete", function () {
    it("answers 503 settlement_pending with Retry-After; a retry of the same payment gets the result once settled, debited once", async function () {
      const before = await stack.escrowBalance();
      const header = paymentHeader(await payEscrow(stack, slow));
      const pending = call(slow.callUrl, { delayMs: 1_000 }, { "X-PAYMENT": header });
      await sleep(400);
      await stack.chain.rpc.stop();
      let answer: Awaited<typeof pending>;
      try {
        answer = await pending;
        expect(answer.status).to.equal(503);
        expectErrorBody(answer.body, "settlement_pending");
        expect(answer.headers.get("retry-after")).to.match(/^\d+$/);
      } finally {
        await stack.chain.rpc.resume();
      }
      // Another authorization reusing the nonce (another maxAmount) neither settles the kept response nor replays it.
      const payload = decodeBase64Json(header) as Awaited<ReturnType<typeof payEscrow>>;
      const reuse = await payEscrow(stack, slow, { nonce: payload.authorization.nonce, maxAmount: slow.cap + 1n });
      const refused = await call(slow.callUrl, { delayMs: 1_000 }, { "X-PAYMENT": paymentHeader(reuse) });
      expect(refused.status, refused.text).to.equal(402);
      expect(refused.body.error).to.equal("nonce_used");
      const retried = await until(async () => {
        const again = await call(slow.callUrl, { delayMs: 1_000 }, { "X-PAYMENT": header });
        return again.status === 200 ? again : undefined;
      });
      const receipt = receiptSchema.parse(decodeBase64Json(retried.headers.get("payment-response")!));
      expect(retried.body).to.deep.equal({ echo: { delayMs: 1_000 } });
      expect(await stack.escrowBalance()).to.equal(before - BigInt(receipt.amount));
    });

    it("a settlement let go past the gate's bound is never run or debited twice: its retry is told to wait, then gets the result", async function () {
      // A bound of one byte keeps only the newest settlement answered 503: the second lets the first go.
      const tight = await startTestResource(stack, {
        slug: "slow-echo-tight",
        source: slowEcho,
        gate: { pendingMaxBytes: 1 },
      });
      try {
        const before = await stack.escrowBalance();
        const headers = [paymentHeader(await payEscrow(stack, tight)), paymentHeader(await payEscrow(stack, tight))];
        const bodies = [
          { delayMs: 1_000, n: 0 },
          { delayMs: 1_000, n: 1 },
        ];
        const calls = headers.map((header, i) => call(tight.callUrl, bodies[i], { "X-PAYMENT": header }));
        await sleep(400);
        await stack.chain.rpc.stop();
        try {
          for (const answer of await Promise.all(calls)) expect(answer.status, answer.text).to.equal(503);
        } finally {
          await stack.chain.rpc.resume();
        }
        expect(tight.runs()).to.equal(2);
        let amount = 0n;
        for (const [i, header] of headers.entries()) {
          const settled = await until(async () => {
            const again = await call(tight.callUrl, bodies[i], { "X-PAYMENT": header });
            if (again.status === 200) return again;
            // Not settled yet, kept here or let go (then the facilitator's 202 says so): to be retried, nothing run.
            expect(again.status, again.text).to.equal(503);
            return undefined;
          }, 60_000);
          expect(settled.body).to.deep.equal({ echo: bodies[i] });
          amount += BigInt(receiptSchema.parse(decodeBase64Json(settled.headers.get("payment-response")!)).amount);
        }
        expect(tight.runs(), "no retry ran the handler again").to.equal(2);
        expect(await stack.escrowBalance()).to.equal(before - amount);
      } finally {
        await tight.close();
      }
    });

    it("answers 503 when the facilitator cannot verify (chain unreachable), reserving nothing and running nothing", async function () {
      const runs = echo.runs();
      await stack.chain.rpc.stop();
      try {
        const answer = await call(echo.callUrl, { a: 1 }, { "X-PAYMENT": paymentHeader(await payEscrow(stack, echo)) });
        expect(answer.status).to.equal(503);
        expect(answer.headers.get("retry-after")).to.match(/^\d+$/);
        expect(errorBodySchema.safeParse(answer.body).success).to.equal(true);
      } finally {
        await stack.chain.rpc.resume();
      }
      expect(echo.runs()).to.equal(runs);
    });
  });

  describe("free paths and CORS", function () {
    it("serves the agent card, health and readiness free", async function () {
      const card = await fetch(`${echo.url}/.well-known/agent-card.json`);
      expect(card.status).to.equal(200);
      const parsed = cardTemplateSchema.parse(await card.json());
      expect(parsed.url).to.equal(echo.callUrl);
      expect(parsed.x402.payTo).to.equal(echo.resourceId);
      expect(await (await fetch(`${echo.url}/health`)).json()).to.deep.equal({ ok: true, service: "gate" });
      const ready = await fetch(`${echo.url}/ready`);
      expect(ready.status).to.equal(200);
      expect(await ready.json()).to.deep.equal({ ready: true });
    });

    for (const path of [
      "/health/",
      "/HEALTH",
      "/health/x",
      "/.well-known/agent-card.json/",
      "/.well-known/agent-card.json.bak",
      "/ready%2f",
      "//health",
      "/call/",
    ]) {
      it(`matches free paths exactly: GET ${path} is 404`, async function () {
        const answer = await fetch(`${echo.url}${path}`);
        expect(answer.status).to.equal(404);
        expectErrorBody(await answer.json(), "not_found");
      });
    }

    it("answers 405 to a wrong method on a known path", async function () {
      expect((await fetch(`${echo.url}/call`)).status).to.equal(405);
      expect((await fetch(`${echo.url}/health`, { method: "POST" })).status).to.equal(405);
    });

    it("answers a CORS preflight and exposes the payment headers", async function () {
      const preflight = await fetch(echo.callUrl, {
        method: "OPTIONS",
        headers: {
          Origin: "https://agent.example",
          "Access-Control-Request-Method": "POST",
          "Access-Control-Request-Headers": "content-type,x-payment,payment-signature",
        },
      });
      expect(preflight.status).to.equal(204);
      expect(preflight.headers.get("access-control-allow-origin")).to.equal("*");
      expect(preflight.headers.get("access-control-allow-headers"))
        .to.match(/X-PAYMENT/)
        .and.match(/PAYMENT-SIGNATURE/);
      const quote = await fetch(echo.callUrl, {
        method: "POST",
        headers: { "content-type": "application/json", Origin: "https://agent.example" },
        body: "{}",
      });
      const exposed = quote.headers.get("access-control-expose-headers")!.split(/,\s*/);
      expect(exposed).to.include.members(["PAYMENT-REQUIRED", "PAYMENT-RESPONSE", "X-PAYMENT-RESPONSE"]);
    });
  });
});
