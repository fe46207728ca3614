import { expect } from "chai";
import type { Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import type { LocalChain } from "../../../testkit/chain/localChain.ts";
import { devKey, ROLE, startLocalChain } from "../../../testkit/chain/localChain.ts";
import { readBooks } from "../../../testkit/facilitator/readBooks.ts";
import { getJson, postJson, startFacilitator } from "../../../testkit/facilitator/startFacilitator.ts";
import { sleep } from "../../../testkit/sleep.ts";
import { until } from "../../../testkit/until.ts";
import { signEscrowPayment } from "../../buyer/src/sdk/signPayment.ts";
import { decodeBase64Json } from "../../protocol/base64.ts";
import { bitmapNonce } from "../../protocol/bitmapNonce.ts";
import { gasCostInTokenUnits } from "../../protocol/gasCostInTokenUnits.ts";
import { receiptSchema } from "../../protocol/schemas/receipt.ts";
import { strikeKeyOf } from "../../protocol/strikeKey.ts";
import { RESERVATION_MARGIN_SECONDS } from "../verifyPayment.ts";

const CAP = 50_000n;
const response = { status: 200, contentType: "application/json", body: { echo: { hello: "world" } } };

describe("facilitator", function () {
  let chain: LocalChain;
  let facilitator: Awaited<ReturnType<typeof startFacilitator>>;
  let resourceId: Hex;
  const buyer = privateKeyToAccount(devKey(ROLE.buyer));

  before(async function () {
    chain = await startLocalChain();
    resourceId = await chain.registerResource({ slug: "echo", cap: CAP });
    await chain.fundBuyer(ROLE.buyer, 1_000_000n);
    facilitator = await startFacilitator(chain);
  });

  after(async function () {
    await facilitator?.stop();
    await chain?.close();
  });

  const validBefore = () => BigInt(Math.floor(Date.now() / 1000) + 600);
  const pay = (overrides: Partial<Parameters<typeof signEscrowPayment>[0]> = {}) =>
    signEscrowPayment({
      account: buyer,
      escrow: chain.addresses.escrow,
      resourceId,
      maxAmount: CAP,
      validBefore: validBefore(),
      ...overrides,
    });
  const struck = (payer: Hex, nonce: Hex) =>
    chain.contracts.registry.read.strikeRecorded([strikeKeyOf({ buyer: payer, nonce })]);
  const verify = (paymentPayload: unknown, rid: Hex = resourceId) =>
    postJson(`${facilitator.url}/verify`, { paymentPayload, resourceId: rid, maxTimeoutSeconds: 60 });

  describe("health and readiness", function () {
    it("answers /health with the service name", async function () {
      const { status, body } = await getJson(`${facilitator.url}/health`);
      expect(status).to.equal(200);
      expect(body).to.deep.equal({ ok: true, service: "facilitator" });
    });

    it("is ready when its store and the chain answer and its escrow book has reached the head", async function () {
      // Until the escrow book's first catch-up is done, /ready says so (503); on a local chain that takes a moment.
      const { status, body } = await until(async () => {
        const ready = await getJson(`${facilitator.url}/ready`);
        return ready.status === 200 ? ready : undefined;
      });
      expect(status).to.equal(200);
      expect(body.ready).to.equal(true);
      expect(body.chainId).to.equal(5042002);
      expect(body.escrowBook.currentAgeSeconds).to.be.within(0, 60);
    });

    it("serves Prometheus metrics with the relayer gas balance", async function () {
      const res = await fetch(`${facilitator.url}/metrics`);
      const text = await res.text();
      expect(text).to.contain("facilitator_relayer_gas_balance_wei");
      expect(text).to.contain("facilitator_verify_total");
    });
  });

  describe("verify, settle, results", function () {
    it("reserves, debits min(amount, cap), stores the result and answers a repeated settle with the same body", async function () {
      const payload = await pay();
      const verified = await verify(payload);
      expect(verified.status).to.equal(200);
      expect(verified.body).to.include({
        isValid: true,
        payer: buyer.address,
        idemKey: payload.authorization.nonce,
        reserved: CAP.toString(),
      });

      const before = await chain.contracts.escrow.read.balanceOf([buyer.address]);
      const settle = { idemKey: payload.authorization.nonce, resourceId, amount: "1200", response };
      const first = await postJson(`${facilitator.url}/settle`, settle);
      expect(first.status).to.equal(200);
      expect(first.body).to.include({
        success: true,
        amount: "1200",
        creatorAmount: "1140",
        treasuryAmount: "60",
        payer: buyer.address,
      });
      const receipt = receiptSchema.parse(decodeBase64Json(first.body.receipt));
      expect(receipt.transaction).to.equal(first.body.transaction);
      expect(receipt.payTo).to.equal(resourceId);
      expect(await chain.contracts.escrow.read.balanceOf([buyer.address])).to.equal(before - 1200n);

      const again = await postJson(`${facilitator.url}/settle`, settle);
      expect(again.status).to.equal(200);
      expect(again.body).to.deep.equal(first.body);
      expect(await chain.contracts.escrow.read.balanceOf([buyer.address])).to.equal(before - 1200n);

      const result = await getJson(`${facilitator.url}/results/${payload.authorization.nonce}`);
      expect(result.status).to.equal(200);
      expect(result.body.response).to.deep.equal(response);
      expect(result.body.receipt).to.equal(first.body.receipt);
      expect(result.body.payment).to.deep.equal({
        scheme: "service-escrow",
        authorization: payload.authorization,
        signature: payload.signature,
      });
    });

    it("books every settlement transaction: its gas, its cost at the effective gas price and the treasury's income, in /metrics", async function () {
      const before = await readBooks(facilitator.url);
      const payload = await pay();
      expect((await verify(payload)).body.isValid).to.equal(true);
      const settle = { idemKey: payload.authorization.nonce, resourceId, amount: "1200", response };
      const settled = await postJson(`${facilitator.url}/settle`, settle);
      expect(settled.body.success).to.equal(true);
      let after = await readBooks(facilitator.url);
      while (after.transactions === before.transactions) {
        await sleep(50);
        after = await readBooks(facilitator.url);
      }
      const receipt = await chain.publicClient.getTransactionReceipt({ hash: settled.body.transaction });
      expect(after.transactions - before.transactions).to.equal(1n);
      expect(after.debits - before.debits).to.equal(1n);
      expect(after.gas - before.gas).to.equal(receipt.gasUsed);
      expect(after.cost - before.cost).to.equal(gasCostInTokenUnits(receipt.gasUsed, receipt.effectiveGasPrice));
      expect(after.cost - before.cost > 0n).to.equal(true);
      expect(after.treasury - before.treasury).to.equal(60n);
    });

    it("takes a window of up to an hour, reserving for the call's timeout and margin only; a longer window is refused", async function () {
      const payload = await pay({ validBefore: BigInt(Math.floor(Date.now() / 1000) + 3600) });
      const verified = await verify(payload);
      expect(verified.body.isValid).to.equal(true);
      const held = (Date.parse(verified.body.expiresAt) - Date.now()) / 1000;
      expect(held).to.be.within(60 + RESERVATION_MARGIN_SECONDS - 10, 60 + RESERVATION_MARGIN_SECONDS + 1);
      await postJson(`${facilitator.url}/release`, { idemKey: payload.authorization.nonce, resourceId });
      const longer = await verify(await pay({ validBefore: BigInt(Math.floor(Date.now() / 1000) + 10 * 3600) }));
      expect(longer.body).to.include({ isValid: false, invalidReason: "invalid_payload" });
    });

    it("never debits more than the reserved cap", async function () {
      const payload = await pay();
      expect((await verify(payload)).body.isValid).to.equal(true);
      const settled = await postJson(`${facilitator.url}/settle`, {
        idemKey: payload.authorization.nonce,
        resourceId,
        amount: (CAP * 10n).toString(),
        response,
      });
      expect(settled.status).to.equal(200);
      expect(settled.body.amount).to.equal(CAP.toString());
    });

    it("answers 409 no_reservation to a settle without a reservation", async function () {
      const payload = await pay();
      const settled = await postJson(`${facilitator.url}/settle`, {
        idemKey: payload.authorization.nonce,
        resourceId,
        amount: "1",
        response,
      });
      expect(settled.status).to.equal(409);
      expect(settled.body.error.code).to.equal("no_reservation");
    });

    it("answers 404 for a result that was never settled", async function () {
      const { status, body } = await getJson(`${facilitator.url}/results/0x${"ab".repeat(32)}`);
      expect(status).to.equal(404);
      expect(body.error.code).to.equal("not_found");
    });
  });

  describe("verify refusals", function () {
    it("nonce_used: the same nonce cannot be reserved twice", async function () {
      const payload = await pay();
      expect((await verify(payload)).body.isValid).to.equal(true);
      const again = await verify(payload);
      expect(again.body).to.include({ isValid: false, invalidReason: "nonce_used" });
    });

    it("bad_signature: a signature by someone else", async function () {
      const other = privateKeyToAccount(devKey(ROLE.other));
      const payload = await pay();
      const forged = await signEscrowPayment({
        account: other,
        escrow: chain.addresses.escrow,
        resourceId,
        maxAmount: CAP,
        validBefore: validBefore(),
      });
      const { body } = await verify({ ...payload, signature: forged.signature });
      expect(body).to.include({ isValid: false, invalidReason: "bad_signature" });
    });

    it("bad_signature: signed for another escrow (domain substitution)", async function () {
      const payload = await pay({ escrow: chain.addresses.registry });
      expect((await verify(payload)).body).to.include({ isValid: false, invalidReason: "bad_signature" });
    });

    it("bad_signature: a high-s (malleable) twin of a valid signature", async function () {
      const payload = await pay();
      const n = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
      const r = payload.signature.slice(2, 66);
      const s = BigInt(`0x${payload.signature.slice(66, 130)}`);
      const v = Number.parseInt(payload.signature.slice(130), 16);
      const highS = `0x${r}${(n - s).toString(16).padStart(64, "0")}${(v === 27 ? 28 : 27).toString(16)}` as Hex;
      expect((await verify({ ...payload, signature: highS })).body).to.include({
        isValid: false,
        invalidReason: "bad_signature",
      });
    });

    it("expired: validBefore earlier than now + maxTimeoutSeconds", async function () {
      const payload = await pay({ validBefore: BigInt(Math.floor(Date.now() / 1000) + 30) });
      expect((await verify(payload)).body).to.include({ isValid: false, invalidReason: "expired" });
    });

    it("expired: validAfter in the future", async function () {
      const payload = await pay({ validAfter: BigInt(Math.floor(Date.now() / 1000) + 300) });
      expect((await verify(payload)).body).to.include({ isValid: false, invalidReason: "expired" });
    });

    it("over_cap: a signed maxAmount below the resource's cap", async function () {
      const payload = await pay({ maxAmount: CAP - 1n });
      expect((await verify(payload)).body).to.include({ isValid: false, invalidReason: "over_cap" });
    });

    it("insufficient_balance: a buyer without escrow funds", async function () {
      const payload = await signEscrowPayment({
        account: privateKeyToAccount(devKey(ROLE.other)),
        escrow: chain.addresses.escrow,
        resourceId,
        maxAmount: CAP,
        validBefore: validBefore(),
      });
      expect((await verify(payload)).body).to.include({ isValid: false, invalidReason: "insufficient_balance" });
    });

    it("invalid_payload: an authorization bound to another resource", async function () {
      const other = await chain.registerResource({ slug: "other-resource", cap: CAP });
      const payload = await pay({ resourceId: other });
      expect((await verify(payload)).body).to.include({ isValid: false, invalidReason: "invalid_payload" });
    });

    it("invalid_payload: another network", async function () {
      const payload = await pay();
      expect((await verify({ ...payload, network: "eip155:1" })).body).to.include({
        isValid: false,
        invalidReason: "invalid_payload",
      });
    });
  });

  describe("release", function () {
    it("frees the cap without a strike, idempotently", async function () {
      const payload = await pay();
      await verify(payload);
      const body = { idemKey: payload.authorization.nonce, resourceId };
      const first = await postJson(`${facilitator.url}/release`, body);
      expect(first.status).to.equal(200);
      expect(first.body).to.deep.equal({ released: true, idemKey: payload.authorization.nonce, strikeRecorded: false });
      const second = await postJson(`${facilitator.url}/release`, body);
      expect(second.body).to.deep.equal(first.body);
      const settled = await postJson(`${facilitator.url}/settle`, { ...body, amount: "1", response });
      expect(settled.status).to.equal(409);
    });

    it("with a strikeReason records one strike on chain", async function () {
      const payload = await pay();
      await verify(payload);
      const released = await postJson(`${facilitator.url}/release`, {
        idemKey: payload.authorization.nonce,
        resourceId,
        strikeReason: "handler_timeout",
      });
      expect(released.body.strikeRecorded).to.equal(true);
      await until(async () => ((await struck(buyer.address, payload.authorization.nonce)) ? true : undefined));
      const resource = await chain.contracts.registry.read.getResource([resourceId]);
      expect(resource.strikes).to.be.greaterThan(0);
    });

    it("strikes two buyers' failed calls that carry the same nonce, each once", async function () {
      const other = privateKeyToAccount(devKey(ROLE.other));
      await chain.fundBuyer(ROLE.other, 1_000_000n);
      const failing = await chain.registerResource({ slug: "failing", cap: CAP });
      const nonce = bitmapNonce(0);
      for (const account of [buyer, other]) {
        const payload = await pay({ account, nonce, resourceId: failing });
        expect((await verify(payload, failing)).body.isValid).to.equal(true);
        const release = { idemKey: nonce, payer: account.address, resourceId: failing, strikeReason: "handler_error" };
        const released = await postJson(`${facilitator.url}/release`, release);
        expect(released.body.strikeRecorded, `${account.address}'s strike queued`).to.equal(true);
        expect((await postJson(`${facilitator.url}/release`, release)).body.strikeRecorded).to.equal(true);
      }
      for (const account of [buyer, other]) {
        await until(async () => ((await struck(account.address, nonce)) ? true : undefined));
      }
      const events = await chain.contracts.registry.getEvents.StrikeRecorded(
        { resourceId: failing },
        { fromBlock: 0n },
      );
      expect(events.map((e) => [e.args.buyer, e.args.nonce]).sort()).to.deep.equal(
        [
          [buyer.address, nonce],
          [other.address, nonce],
        ].sort(),
      );
      expect(events.map((e) => e.args.strikes)).to.deep.equal([1, 2]);
    });

    it("answers 409 already_settled after a settle", async function () {
      const payload = await pay();
      await verify(payload);
      await postJson(`${facilitator.url}/settle`, {
        idemKey: payload.authorization.nonce,
        resourceId,
        amount: "1000",
        response,
      });
      const released = await postJson(`${facilitator.url}/release`, {
        idemKey: payload.authorization.nonce,
        resourceId,
      });
      expect(released.status).to.equal(409);
      expect(released.body.error.code).to.equal("already_settled");
    });
  });

  describe("malformed requests", function () {
    const cases: [string, string, unknown][] = [
      ["verify without a body", "/verify", ""],
      ["verify with broken JSON", "/verify", "{not json"],
      ["verify without resourceId", "/verify", { paymentPayload: {}, maxTimeoutSeconds: 60 }],
      [
        "verify with a string timeout",
        "/verify",
        { paymentPayload: {}, resourceId: `0x${"00".repeat(32)}`, maxTimeoutSeconds: "60" },
      ],
      [
        "settle with a negative amount",
        "/settle",
        { idemKey: `0x${"00".repeat(32)}`, resourceId: `0x${"00".repeat(32)}`, amount: "-1", response },
      ],
      [
        "settle with a number amount",
        "/settle",
        { idemKey: `0x${"00".repeat(32)}`, resourceId: `0x${"00".repeat(32)}`, amount: 5, response },
      ],
      ...["abc", "1.5", "1e3"].map((amount): [string, string, unknown] => [
        `settle with a non-numeric amount ${amount} (a refinement on it threw: 500)`,
        "/settle",
        { idemKey: `0x${"00".repeat(32)}`, resourceId: `0x${"00".repeat(32)}`, amount, response },
      ]),
      [
        "settle with a non-2xx response",
        "/settle",
        {
          idemKey: `0x${"00".repeat(32)}`,
          resourceId: `0x${"00".repeat(32)}`,
          amount: "5",
          response: { ...response, status: 500 },
        },
      ],
      ["release with a short idemKey", "/release", { idemKey: "0x1234", resourceId: `0x${"00".repeat(32)}` }],
      ["release with an array body", "/release", [1, 2, 3]],
    ];
    for (const [name, path, body] of cases) {
      it(`answers 400 with an error body: ${name}`, async function () {
        const res = await postJson(`${facilitator.url}${path}`, body);
        expect(res.status).to.equal(400);
        expect(res.body.error.code).to.equal("invalid_request");
        expect(res.body.error.message).to.be.a("string").and.not.empty;
      });
    }

    it("answers 400 to a malformed idemKey in /results", async function () {
      expect((await getJson(`${facilitator.url}/results/nothex`)).status).to.equal(400);
    });
  });
});
