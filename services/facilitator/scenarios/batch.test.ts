import { connect } from "node:net";
import { expect } from "chai";
import type { Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import type { LocalChain } from "../../../testkit/chain/localChain.ts";
import { devKey, ROLE, startLocalChain } from "../../../testkit/chain/localChain.ts";
import { getJson, postJson, startFacilitator } from "../../../testkit/facilitator/startFacilitator.ts";
import { sleep } from "../../../testkit/sleep.ts";
import { until } from "../../../testkit/until.ts";
import { signEscrowPayment } from "../../buyer/src/sdk/signPayment.ts";
import { signCallerToken } from "../../protocol/callerToken.ts";
import { FACILITATOR_BATCH_MAX_BYTES, FACILITATOR_BATCH_MAX_CALLS } from "../../protocol/constants.ts";

const CAP = 50_000n;
const secret = "b".repeat(40);
const response = { status: 200, contentType: "application/json", body: { answer: 42 } };

/**
 * `POST /batch` (docs/protocol.md, "Facilitator batches"): many payment calls in one request, each answered as its own
 * route would answer it, each authorized by its own caller token.
 */
describe("facilitator batches: each call answered as its own route, each authorized on its own", function () {
  let chain: LocalChain;
  let resourceA: Hex;
  let resourceB: Hex;
  let facilitator: Awaited<ReturnType<typeof startFacilitator>>;
  const buyer = privateKeyToAccount(devKey(ROLE.buyer));
  const tokenOf = (resourceId: Hex) => signCallerToken({ resourceId, secret, ttlSeconds: 60 });
  const payment = (resourceId: Hex, maxAmount = CAP) =>
    signEscrowPayment({
      account: buyer,
      escrow: chain.addresses.escrow,
      resourceId,
      maxAmount,
      validBefore: BigInt(Math.floor(Date.now() / 1000) + 600),
    });
  const verifyBody = async (resourceId: Hex, maxAmount = CAP) => ({
    paymentPayload: await payment(resourceId, maxAmount),
    resourceId,
    maxTimeoutSeconds: 60,
  });
  const batch = (calls: unknown[]) => postJson(`${facilitator.url}/batch`, { calls });

  before(async function () {
    chain = await startLocalChain();
    resourceA = await chain.registerResource({ slug: "batch-a", cap: CAP });
    resourceB = await chain.registerResource({ slug: "batch-b", cap: CAP });
    await chain.fundBuyer(ROLE.buyer, 1_000_000n);
    facilitator = await startFacilitator(chain, {
      env: { CALLER_AUTH: "on", CALLER_AUTH_SECRET: secret, SETTLEMENT: "committed" },
    });
  });

  after(async function () {
    await facilitator?.stop();
    await chain?.close();
  });

  it("answers a verify, a refused verify and a malformed call in one batch as their routes do, then settles in a batch", async function () {
    const good = await verifyBody(resourceA);
    const underCap = await verifyBody(resourceA, CAP - 1n);
    const { body: single } = await postJson(`${facilitator.url}/verify`, await verifyBody(resourceA, CAP - 1n), {
      authorization: `Bearer ${tokenOf(resourceA)}`,
    });

    const verified = await batch([
      { route: "verify", token: tokenOf(resourceA), body: good },
      { route: "verify", token: tokenOf(resourceA), body: underCap },
      { route: "verify", token: tokenOf(resourceA), body: { resourceId: resourceA } },
    ]);
    expect(verified.status).to.equal(200);
    const [ok, refused, malformed] = verified.body.answers;
    expect(ok.status).to.equal(200);
    expect(ok.body).to.include({
      isValid: true,
      payer: buyer.address,
      idemKey: good.paymentPayload.authorization.nonce,
    });
    expect(refused).to.deep.equal({ status: 200, body: single });
    expect(refused.body).to.include({ isValid: false, invalidReason: "over_cap" });
    expect(malformed.status).to.equal(400);
    expect(malformed.body.error.code).to.equal("invalid_request");

    const idemKey = good.paymentPayload.authorization.nonce;
    const settle = { idemKey, payer: buyer.address, resourceId: resourceA, amount: "1200", response };
    const settled = await batch([
      { route: "settle", token: tokenOf(resourceA), body: settle },
      {
        route: "release",
        token: tokenOf(resourceA),
        body: { idemKey: `0x${"77".repeat(32)}`, payer: buyer.address, resourceId: resourceA },
      },
    ]);
    const [paid, release] = settled.body.answers;
    expect(paid.status).to.equal(200);
    expect(paid.body).to.include({ success: true, status: "committed", amount: "1200", idemKey });
    expect(release.status).to.equal(409);
    expect(release.body.error.code).to.equal("no_reservation");
    // The same settle again, on its own route: the same answer, as for any repeated settle.
    const again = await postJson(`${facilitator.url}/settle`, settle, {
      authorization: `Bearer ${tokenOf(resourceA)}`,
    });
    expect(again.status).to.equal(200);
    expect(again.body).to.deep.equal(paid.body);
  });

  it("batchTokenSubstitution: a call on one resource carrying another resource's token, or none, is refused alone", async function () {
    const onA = await verifyBody(resourceA);
    const onB = await verifyBody(resourceB);
    const bare = await verifyBody(resourceB);
    const answered = await batch([
      { route: "verify", token: tokenOf(resourceA), body: onA },
      { route: "verify", token: tokenOf(resourceA), body: onB },
      { route: "verify", body: bare },
    ]);
    const [a, substituted, missing] = answered.body.answers;
    expect(a.status).to.equal(200);
    expect(a.body.isValid).to.equal(true);
    for (const refused of [substituted, missing]) {
      expect(refused.status).to.equal(401);
      expect(refused.body.error.code).to.equal("unauthorized");
    }
    // Nothing was reserved for the refused calls: B's payments verify later with B's own token.
    const later = await batch([
      { route: "verify", token: tokenOf(resourceB), body: onB },
      { route: "verify", token: tokenOf(resourceB), body: bare },
    ]);
    expect(later.body.answers.map((x: { body: { isValid: boolean } }) => x.body.isValid)).to.deep.equal([true, true]);
    // And a settle of A's reservation with B's token is refused, leaving it reserved.
    const stolen = await batch([
      {
        route: "settle",
        token: tokenOf(resourceB),
        body: {
          idemKey: onA.paymentPayload.authorization.nonce,
          payer: buyer.address,
          resourceId: resourceA,
          amount: "1",
          response,
        },
      },
    ]);
    expect(stolen.body.answers[0].status).to.equal(401);
  });

  it("batchDoubleSpend: one payment twice in a batch reserves once, and its settle twice in a batch debits once", async function () {
    const escrow = chain.contracts.escrow;
    // Every debit committed before this test mined first, so the balance moves by this test's debits only.
    const settling = async () =>
      (
        await facilitator.ctx.store.query<{ n: number }>(
          "SELECT count(*)::int AS n FROM reservation WHERE status = 'settling'",
        )
      )[0]?.n;
    await until(async () => ((await settling()) === 0 ? true : undefined), 20_000, "earlier debits mined");
    const balance = await escrow.read.balanceOf([buyer.address]);
    const twice = await verifyBody(resourceA);
    const verified = await batch([
      { route: "verify", token: tokenOf(resourceA), body: twice },
      { route: "verify", token: tokenOf(resourceA), body: twice },
    ]);
    const outcomes = verified.body.answers.map((a: { body: { isValid: boolean; invalidReason?: string } }) =>
      a.body.isValid ? "reserved" : a.body.invalidReason,
    );
    expect(outcomes.sort()).to.deep.equal(["nonce_used", "reserved"]);

    const idemKey = twice.paymentPayload.authorization.nonce;
    const settle = { idemKey, payer: buyer.address, resourceId: resourceA, amount: "1300", response };
    const settled = await batch([
      { route: "settle", token: tokenOf(resourceA), body: settle },
      { route: "settle", token: tokenOf(resourceA), body: settle },
    ]);
    const [first, second] = settled.body.answers;
    expect(first.status).to.equal(200);
    expect(second, "the second settle answers the first's receipt").to.deep.equal(first);
    await until(
      async () =>
        (
          await getJson(`${facilitator.url}/results/${idemKey}?payer=${buyer.address}`, {
            authorization: `Bearer ${tokenOf(resourceA)}`,
          })
        ).body.settlement === "confirmed"
          ? true
          : undefined,
      20_000,
      "the debit mined",
    );
    await sleep(500);
    expect(await escrow.read.balanceOf([buyer.address]), "exactly one debit of 1300").to.equal(balance - 1300n);
  });

  it("refuses a malformed batch whole: no calls, too many, an unknown route, not POST, not JSON, not typed JSON, too big; a prototype key is data", async function () {
    const call = { route: "verify", token: tokenOf(resourceA), body: {} };
    for (const calls of [[], Array(FACILITATOR_BATCH_MAX_CALLS + 1).fill(call), [{ ...call, route: "results" }]]) {
      const refused = await batch(calls);
      expect(refused.status).to.equal(400);
      expect(refused.body.error.code).to.equal("invalid_request");
    }
    const got = await getJson(`${facilitator.url}/batch`);
    expect(got.status).to.equal(405);
    expect(got.headers.get("allow")).to.equal("POST");
    expect(got.body.error.code).to.equal("method_not_allowed");
    const notJson = await postJson(`${facilitator.url}/batch`, "{calls:");
    expect(notJson.status).to.equal(400);
    expect(notJson.body.error.code).to.equal("invalid_request");
    // A `__proto__` key is data (a handler's response may hold one): the batch runs, the call's schema refuses its
    // body, and nothing reaches an object's prototype.
    const poisoned = await postJson(
      `${facilitator.url}/batch`,
      `{"calls":[{"route":"verify","body":{"__proto__":{"x":1}}}]}`,
    );
    expect(poisoned.status).to.equal(200);
    expect(poisoned.body.answers[0].status).to.equal(400);
    expect(poisoned.body.answers[0].body.error.code).to.equal("invalid_request");
    expect(({} as { x?: number }).x).to.equal(undefined);
    const plain = await postJson(`${facilitator.url}/batch`, JSON.stringify({ calls: [call] }), {
      "content-type": "text/plain",
    });
    expect(plain.status).to.equal(415);
    expect(plain.body.error.code).to.equal("unsupported_media_type");
    const big = "x".repeat(FACILITATOR_BATCH_MAX_BYTES);
    const tooBig = await batch([{ ...call, body: { big } }]);
    expect(tooBig.status).to.equal(413);
    expect(tooBig.body.error.code).to.equal("payload_too_large");
    const metrics = await getJson(`${facilitator.url}/metrics`);
    expect(metrics.body).to.match(/facilitator_http_request_duration_seconds_count\{route="\/batch",status="413"\} 1/);
  });

  it("counts a batch whose client left before sending it whole as unread (400), and keeps answering", async function () {
    const refusedCount = async () => {
      const { body } = await getJson(`${facilitator.url}/metrics`);
      const found = /facilitator_http_request_duration_seconds_count\{route="\/batch",status="400"\} (\d+)/.exec(body);
      return Number(found?.[1] ?? 0);
    };
    const before = await refusedCount();
    const { hostname, port } = new URL(facilitator.url);
    const socket = connect(Number(port), hostname);
    await new Promise((resolve) => socket.once("connect", resolve));
    socket.write(
      'POST /batch HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n{"calls":',
    );
    await sleep(100);
    socket.destroy();
    await until(
      async () => ((await refusedCount()) === before + 1 ? true : undefined),
      10_000,
      "the left batch counted as unread",
    );
    expect((await batch([])).status).to.equal(400);
  });
});
