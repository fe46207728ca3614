import { expect } from "chai";
import type { Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import type { LocalChain } from "../../../testkit/chain/localChain.ts";
import { devKey, ROLE, startLocalChain } from "../../../testkit/chain/localChain.ts";
import { facilitatorEnv, getJson, postJson } from "../../../testkit/facilitator/startFacilitator.ts";
import { signEscrowPayment } from "../../buyer/src/sdk/signPayment.ts";
import { isLoopbackHost } from "../../http/isLoopbackHost.ts";
import { signCallerToken } from "../../protocol/callerToken.ts";
import { createFacilitator } from "../createFacilitator.ts";
import { FacilitatorConfigError, loadFacilitatorConfig } from "../loadFacilitatorConfig.ts";

const CAP = 50_000n;
const secret = "c".repeat(40);

/**
 * Caller auth was off unless turned on, on any listen address. A facilitator started with the defaults let anyone
 * who reached it settle a reservation at amount 1 while the gate's handler ran (the creator is paid 1 for the
 * call), release it with a strike reason (a strike against the creator), or read any `/results/:nonce` (nonces are
 * public in `Debited` logs, so every buyer's response). Now auth is on unless CALLER_AUTH=off, a missing secret
 * refuses the start, and off is refused unless the facilitator listens on loopback only.
 */
describe("caller auth is fail-closed: nobody without a caller token can settle, strike or read results", function () {
  let chain: LocalChain;
  let resourceId: Hex;
  const buyer = privateKeyToAccount(devKey(ROLE.buyer));
  const defaults = () => {
    const { CALLER_AUTH: _off, ...env } = facilitatorEnv(chain);
    return { ...env, DATA_DIR: "memory://", LOG_LEVEL: "silent" };
  };

  before(async function () {
    chain = await startLocalChain();
    resourceId = await chain.registerResource({ slug: "auth-echo", cap: CAP });
    await chain.fundBuyer(ROLE.buyer, 1_000_000n);
  });

  after(async function () {
    await chain?.close();
  });

  it("is on when CALLER_AUTH is not set, and refuses to start without a secret (in any NODE_ENV)", function () {
    expect(loadFacilitatorConfig({ ...defaults(), CALLER_AUTH_SECRET: secret }).CALLER_AUTH).to.equal(true);
    expect(() => loadFacilitatorConfig(defaults())).to.throw(FacilitatorConfigError, /CALLER_AUTH_SECRET/);
    expect(() => loadFacilitatorConfig({ ...defaults(), NODE_ENV: "development" })).to.throw(FacilitatorConfigError);
  });

  for (const host of ["0.0.0.0", "::", "192.168.1.20", "10.0.0.5", "example.internal"]) {
    it(`refuses CALLER_AUTH=off on HOST ${host}`, function () {
      expect(() => loadFacilitatorConfig({ ...defaults(), HOST: host, CALLER_AUTH: "off" })).to.throw(
        FacilitatorConfigError,
        /loopback/,
      );
    });
  }

  it("allows CALLER_AUTH=off only on loopback (127.0.0.0/8, ::1, localhost)", function () {
    for (const host of ["127.0.0.1", "127.1.2.3", "::1", "[::1]", "localhost", "::ffff:127.0.0.1"]) {
      expect(isLoopbackHost(host), host).to.equal(true);
      expect(loadFacilitatorConfig({ ...defaults(), HOST: host, CALLER_AUTH: "off" }).CALLER_AUTH).to.equal(false);
    }
  });

  it("with the defaults, an attacker without a token cannot settle at amount 1, release with a strike, or read results", async function () {
    const facilitator = await createFacilitator(loadFacilitatorConfig({ ...defaults(), CALLER_AUTH_SECRET: secret }), {
      backgroundIntervalMs: 100,
    });
    try {
      const gate = { authorization: `Bearer ${signCallerToken({ resourceId, secret, ttlSeconds: 60 })}` };
      const payload = await signEscrowPayment({
        account: buyer,
        escrow: chain.addresses.escrow,
        resourceId,
        maxAmount: CAP,
        validBefore: BigInt(Math.floor(Date.now() / 1000) + 600),
      });
      const idemKey = payload.authorization.nonce;
      const verified = await postJson(
        `${facilitator.url}/verify`,
        { paymentPayload: payload, resourceId, maxTimeoutSeconds: 60 },
        gate,
      );
      expect(verified.body.isValid).to.equal(true);
      // The open payment (its signed authorization) is read only with a token for its resource.
      const other = `0x${"ee".repeat(32)}`;
      const elsewhere = { authorization: `Bearer ${signCallerToken({ resourceId: other, secret, ttlSeconds: 60 })}` };
      expect((await getJson(`${facilitator.url}/results/${idemKey}`)).status, "open, no token").to.equal(401);
      expect((await getJson(`${facilitator.url}/results/${idemKey}`, elsewhere)).status, "another's").to.equal(401);
      const open = await getJson(`${facilitator.url}/results/${idemKey}`, gate);
      expect(open.status).to.equal(202);
      expect(open.body.settlement).to.equal("reserved");

      const response = { status: 200, contentType: "application/json", body: { stolen: true } };
      const settle = await postJson(`${facilitator.url}/settle`, { idemKey, resourceId, amount: "1", response });
      expect(settle.status, "settle at amount 1").to.equal(401);
      const release = await postJson(`${facilitator.url}/release`, {
        idemKey,
        resourceId,
        strikeReason: "handler_error",
      });
      expect(release.status, "release with a strike").to.equal(401);

      const paid = await postJson(
        `${facilitator.url}/settle`,
        { idemKey, resourceId, amount: "1200", response: { ...response, body: { answer: "only-for-the-buyer" } } },
        gate,
      );
      expect(paid.status).to.equal(200);
      expect(paid.body.amount).to.equal("1200");
      const read = await getJson(`${facilitator.url}/results/${idemKey}`);
      expect(read.status, "results without a token").to.equal(401);
      expect(JSON.stringify(read.body)).not.to.contain("only-for-the-buyer");
      expect((await getJson(`${facilitator.url}/results/${idemKey}`, gate)).status).to.equal(200);
    } finally {
      await facilitator.stop();
    }
  });
});
