import { Writable } from "node:stream";
import { expect } from "chai";
import type { Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import type { LocalChain } from "../../../testkit/chain/localChain.ts";
import { devKey, ROLE, startLocalChain } from "../../../testkit/chain/localChain.ts";
import {
  facilitatorEnv,
  getJson,
  manualClock,
  postJson,
  startFacilitator,
} from "../../../testkit/facilitator/startFacilitator.ts";
import { sleep } from "../../../testkit/sleep.ts";
import { until } from "../../../testkit/until.ts";
import { signEscrowPayment, signExactPayment } from "../../buyer/src/sdk/signPayment.ts";
import { signCallerToken } from "../../protocol/callerToken.ts";
import { RESULT_TTL_SECONDS } from "../../protocol/constants.ts";
import { strikeKeyOf } from "../../protocol/strikeKey.ts";
import { RECLAIM_INTERVAL_SECONDS, runBackgroundPass } from "../backgroundWork.ts";
import { createFacilitator } from "../createFacilitator.ts";
import { loadFacilitatorConfig } from "../loadFacilitatorConfig.ts";
import { createLogger } from "../logger.ts";

const CAP = 50_000n;
const response = { status: 200, contentType: "application/json", body: { ok: true } };

describe("facilitator resilience", function () {
  let chain: LocalChain;
  let resourceId: Hex;
  const buyer = privateKeyToAccount(devKey(ROLE.buyer));
  const validBefore = () => BigInt(Math.floor(Date.now() / 1000) + 600);
  const pay = () =>
    signEscrowPayment({
      account: buyer,
      escrow: chain.addresses.escrow,
      resourceId,
      maxAmount: CAP,
      validBefore: validBefore(),
    });

  before(async function () {
    chain = await startLocalChain();
    resourceId = await chain.registerResource({ slug: "echo", cap: CAP });
    await chain.fundBuyer(ROLE.buyer, 10_000_000n);
  });

  after(async function () {
    await chain?.close();
  });

  describe("when the RPC stops in the middle of a batch", function () {
    it("answers 503 settlement_pending, then serves the settled results once it returns, with nonces intact", async function () {
      const facilitator = await startFacilitator(chain, { env: { BATCH_WINDOW_MS: "50" } });
      try {
        const payloads = await Promise.all(Array.from({ length: 5 }, pay));
        for (const p of payloads) {
          const v = await postJson(`${facilitator.url}/verify`, {
            paymentPayload: p,
            resourceId,
            maxTimeoutSeconds: 60,
          });
          expect(v.body.isValid).to.equal(true);
        }
        const before = await chain.contracts.escrow.read.balanceOf([buyer.address]);
        const settles = payloads.map((p) =>
          postJson(`${facilitator.url}/settle`, {
            idemKey: p.authorization.nonce,
            resourceId,
            amount: "1000",
            response,
          }),
        );
        await sleep(10);
        await chain.rpc.stop();
        const answers = await Promise.all(settles);
        expect(answers.map((a) => a.status)).to.deep.equal([503, 503, 503, 503, 503]);
        expect(answers[0]!.body.error.code).to.equal("settlement_pending");
        expect(answers[0]!.headers.get("retry-after")).to.match(/^\d+$/);

        await chain.rpc.resume();
        const results = await Promise.all(
          payloads.map((p) =>
            until(async () => {
              const r = await getJson(`${facilitator.url}/results/${p.authorization.nonce}`);
              return r.status === 200 ? r.body : undefined;
            }),
          ),
        );
        for (const [i, p] of payloads.entries()) {
          const again = await postJson(`${facilitator.url}/settle`, {
            idemKey: p.authorization.nonce,
            resourceId,
            amount: "1000",
            response,
          });
          expect(again.status).to.equal(200);
          expect(again.body.receipt).to.equal(results[i]!.receipt);
        }
        expect(await chain.contracts.escrow.read.balanceOf([buyer.address])).to.equal(before - 5_000n);

        const relayer = privateKeyToAccount(devKey(ROLE.relayer)).address;
        const [latest, pending] = await Promise.all([
          chain.publicClient.getTransactionCount({ address: relayer, blockTag: "latest" }),
          chain.publicClient.getTransactionCount({ address: relayer, blockTag: "pending" }),
        ]);
        expect(pending).to.equal(latest);
        const next = await pay();
        await postJson(`${facilitator.url}/verify`, { paymentPayload: next, resourceId, maxTimeoutSeconds: 60 });
        const settled = await postJson(`${facilitator.url}/settle`, {
          idemKey: next.authorization.nonce,
          resourceId,
          amount: "1000",
          response,
        });
        expect(settled.status).to.equal(200);
      } finally {
        await chain.rpc.resume();
        await facilitator.stop();
      }
    });

    it("answers verify with 503 chain_unavailable, never 500", async function () {
      const facilitator = await startFacilitator(chain);
      try {
        await chain.rpc.stop();
        const v = await postJson(`${facilitator.url}/verify`, {
          paymentPayload: await pay(),
          resourceId,
          maxTimeoutSeconds: 60,
        });
        expect(v.status).to.equal(503);
        expect(v.body.error.code).to.equal("chain_unavailable");
        const ready = await getJson(`${facilitator.url}/ready`);
        expect(ready.status).to.equal(503);
      } finally {
        await chain.rpc.resume();
        await facilitator.stop();
      }
    });
  });

  describe("store maintenance (PGlite)", function () {
    it("checkpoints the store once RECLAIM_INTERVAL_SECONDS have passed, and not before", async function () {
      const clock = manualClock();
      const facilitator = await startFacilitator(chain, { clock, backgroundIntervalMs: 20 });
      const redoPoint = async () =>
        (
          await facilitator.ctx.store.query<{ lsn: string }>(
            "SELECT redo_lsn::text AS lsn FROM pg_control_checkpoint()",
          )
        )[0]?.lsn;
      try {
        const p = await pay();
        await postJson(`${facilitator.url}/verify`, { paymentPayload: p, resourceId, maxTimeoutSeconds: 60 });
        const atStart = await redoPoint();
        clock.advance(RECLAIM_INTERVAL_SECONDS - 1);
        await sleep(200);
        expect(await redoPoint()).to.equal(atStart);
        clock.advance(1);
        await until(async () => ((await redoPoint()) !== atStart ? true : undefined), 5_000, "a checkpoint");
      } finally {
        await facilitator.stop();
      }
    });
  });

  describe("result retention", function () {
    it("serves a result for 24 hours and answers 404 after", async function () {
      const clock = manualClock();
      const facilitator = await startFacilitator(chain, { clock });
      try {
        const p = await pay();
        await postJson(`${facilitator.url}/verify`, { paymentPayload: p, resourceId, maxTimeoutSeconds: 60 });
        expect(
          (
            await postJson(`${facilitator.url}/settle`, {
              idemKey: p.authorization.nonce,
              resourceId,
              amount: "1000",
              response,
            })
          ).status,
        ).to.equal(200);
        clock.advance(RESULT_TTL_SECONDS - 1);
        expect((await getJson(`${facilitator.url}/results/${p.authorization.nonce}`)).status).to.equal(200);
        clock.advance(1);
        expect((await getJson(`${facilitator.url}/results/${p.authorization.nonce}`)).status).to.equal(404);
      } finally {
        await facilitator.stop();
      }
    });

    it("expires an unsettled reservation at validBefore without a strike", async function () {
      const clock = manualClock();
      const facilitator = await startFacilitator(chain, { clock });
      try {
        const p = await pay();
        await postJson(`${facilitator.url}/verify`, { paymentPayload: p, resourceId, maxTimeoutSeconds: 60 });
        clock.advance(700);
        await until(async () => {
          const r = await facilitator.ctx.store.query<{ status: string }>(
            "SELECT status FROM reservation WHERE idem_key = $1",
            [p.authorization.nonce],
          );
          return r[0]?.status === "expired" ? true : undefined;
        });
        const s = await postJson(`${facilitator.url}/settle`, {
          idemKey: p.authorization.nonce,
          resourceId,
          amount: "1000",
          response,
        });
        expect(s.status).to.equal(409);
        const strikeKey = strikeKeyOf({ buyer: p.authorization.buyer, nonce: p.authorization.nonce });
        expect(await chain.contracts.registry.read.strikeRecorded([strikeKey])).to.equal(false);
      } finally {
        await facilitator.stop();
      }
    });

    it("deletes a finished reservation a day after its signed window closed, and a replay of its nonce is still refused", async function () {
      const clock = manualClock();
      const facilitator = await startFacilitator(chain, { clock });
      const statusOf = async (nonce: Hex) =>
        (
          await facilitator.ctx.store.query<{ status: string }>("SELECT status FROM reservation WHERE idem_key = $1", [
            nonce,
          ])
        )[0]?.status ?? "deleted";
      try {
        const start = clock.now();
        const window = 600;
        const signFor = (seconds: number) =>
          signEscrowPayment({
            account: buyer,
            escrow: chain.addresses.escrow,
            resourceId,
            maxAmount: CAP,
            validBefore: BigInt(start + seconds),
          });
        const [settled, unsettled, later] = await Promise.all([signFor(window), signFor(window), signFor(3_000)]);
        for (const p of [settled, unsettled, later]) {
          const v = await postJson(`${facilitator.url}/verify`, {
            paymentPayload: p,
            resourceId,
            maxTimeoutSeconds: 60,
          });
          expect(v.body.isValid).to.equal(true);
        }
        const nonce = settled.authorization.nonce;
        const s = await postJson(`${facilitator.url}/settle`, { idemKey: nonce, resourceId, amount: "1000", response });
        expect(s.status).to.equal(200);
        await until(async () => ((await statusOf(nonce)) === "settled" ? true : undefined));

        // A second before a day past the window: a whole pass keeps everything (the two unsettled ones expire).
        clock.advance(window + RESULT_TTL_SECONDS - 1);
        await runBackgroundPass(facilitator.ctx);
        expect(await statusOf(unsettled.authorization.nonce)).to.equal("expired");
        expect(await statusOf(nonce)).to.equal("settled");

        // A day past the window: the two finished in it are deleted; the one signed for longer is kept.
        clock.advance(1);
        await runBackgroundPass(facilitator.ctx);
        expect(await statusOf(nonce)).to.equal("deleted");
        expect(await statusOf(unsettled.authorization.nonce)).to.equal("deleted");
        expect(await statusOf(later.authorization.nonce)).to.equal("expired");

        // Replaying the deleted reservation's signed payment reserves nothing and settles nothing.
        const replay = await postJson(`${facilitator.url}/verify`, {
          paymentPayload: settled,
          resourceId,
          maxTimeoutSeconds: 60,
        });
        expect(replay.body).to.include({ isValid: false, invalidReason: "expired" });
        expect(await statusOf(nonce)).to.equal("deleted");
        const again = await postJson(`${facilitator.url}/settle`, {
          idemKey: nonce,
          resourceId,
          amount: "1000",
          response,
        });
        expect(again.status).to.equal(409);
      } finally {
        await facilitator.stop();
      }
    });
  });

  describe("the exact scheme", function () {
    it("settles an EIP-3009 transfer through the escrow and splits it", async function () {
      const facilitator = await startFacilitator(chain);
      try {
        await chain.contracts.token.write.mint([buyer.address, CAP * 3n]);
        const p = await signExactPayment({
          account: buyer,
          token: chain.addresses.token,
          escrow: chain.addresses.escrow,
          value: CAP,
          validBefore: validBefore(),
        });
        const v = await postJson(`${facilitator.url}/verify`, { paymentPayload: p, resourceId, maxTimeoutSeconds: 60 });
        expect(v.body).to.include({ isValid: true, reserved: CAP.toString() });
        const tokenBefore = await chain.contracts.token.read.balanceOf([buyer.address]);
        const s = await postJson(`${facilitator.url}/settle`, {
          idemKey: p.authorization.nonce,
          resourceId,
          amount: "1",
          response,
        });
        expect(s.status).to.equal(200);
        expect(s.body).to.include({ amount: CAP.toString(), creatorAmount: "47500", treasuryAmount: "2500" });
        expect(await chain.contracts.token.read.balanceOf([buyer.address])).to.equal(tokenBefore - CAP);
      } finally {
        await facilitator.stop();
      }
    });

    it("refuses an exact payment that does not pay the escrow (payTo substitution)", async function () {
      const facilitator = await startFacilitator(chain);
      try {
        const p = await signExactPayment({
          account: buyer,
          token: chain.addresses.token,
          escrow: chain.address(ROLE.other),
          value: CAP,
          validBefore: validBefore(),
        });
        const v = await postJson(`${facilitator.url}/verify`, { paymentPayload: p, resourceId, maxTimeoutSeconds: 60 });
        expect(v.body).to.include({ isValid: false, invalidReason: "invalid_payload" });
      } finally {
        await facilitator.stop();
      }
    });
  });

  describe("caller auth", function () {
    const secret = "s".repeat(40);

    it("refuses a missing, forged, expired or misbound token with 401 and accepts a bound one", async function () {
      const facilitator = await startFacilitator(chain, { env: { CALLER_AUTH: "on", CALLER_AUTH_SECRET: secret } });
      try {
        const body = { paymentPayload: await pay(), resourceId, maxTimeoutSeconds: 60 };
        const url = `${facilitator.url}/verify`;
        const now = Math.floor(Date.now() / 1000);
        expect((await postJson(url, body)).status).to.equal(401);
        const forged = signCallerToken({ resourceId, secret: "x".repeat(40), ttlSeconds: 60 });
        expect((await postJson(url, body, { authorization: `Bearer ${forged}` })).status).to.equal(401);
        const expired = signCallerToken({ resourceId, secret, ttlSeconds: 60, now: now - 120 });
        expect((await postJson(url, body, { authorization: `Bearer ${expired}` })).status).to.equal(401);
        const misbound = signCallerToken({ resourceId: `0x${"12".repeat(32)}`, secret, ttlSeconds: 60 });
        expect((await postJson(url, body, { "x-resource-auth": misbound })).status).to.equal(401);
        const good = signCallerToken({ resourceId, secret, ttlSeconds: 60 });
        const ok = await postJson(url, body, { "x-resource-auth": good });
        expect(ok.status).to.equal(200);
        expect(ok.body.isValid).to.equal(true);
      } finally {
        await facilitator.stop();
      }
    });

    it("refuses to start in production with auth on and no secret", function () {
      expect(() =>
        loadFacilitatorConfig({
          RPC_URL: chain.rpcUrl,
          ESCROW_ADDRESS: chain.addresses.escrow,
          REGISTRY_ADDRESS: chain.addresses.registry,
          TOKEN_ADDRESS: chain.addresses.token,
          RELAYER_KEYS: devKey(ROLE.relayer),
          CALLER_AUTH: "on",
          NODE_ENV: "production",
        }),
      ).to.throw(/CALLER_AUTH_SECRET/);
    });
  });

  describe("logs", function () {
    it("never contain a signature, a private key or a caller token", async function () {
      const lines: string[] = [];
      const sink = new Writable({
        write(chunk, _enc, done) {
          lines.push(String(chunk));
          done();
        },
      });
      const secret = "t".repeat(40);
      const config = loadFacilitatorConfig({
        ...facilitatorEnv(chain),
        DATA_DIR: "memory://",
        CALLER_AUTH: "on",
        CALLER_AUTH_SECRET: secret,
      });
      const facilitator = await createFacilitator(config, {
        logger: createLogger("facilitator", "trace", sink),
        backgroundIntervalMs: 50,
      });
      const token = signCallerToken({ resourceId, secret, ttlSeconds: 60 });
      const p = await pay();
      try {
        const headers = { authorization: `Bearer ${token}` };
        await postJson(`${facilitator.url}/verify`, { paymentPayload: p, resourceId, maxTimeoutSeconds: 60 }, headers);
        await postJson(
          `${facilitator.url}/release`,
          { idemKey: p.authorization.nonce, resourceId, strikeReason: "handler_error" },
          headers,
        );
        await chain.rpc.stop();
        await postJson(
          `${facilitator.url}/verify`,
          { paymentPayload: await pay(), resourceId, maxTimeoutSeconds: 60 },
          headers,
        );
        await chain.rpc.resume();
        await until(async () =>
          (await chain.contracts.registry.read.strikeRecorded([
            strikeKeyOf({ buyer: p.authorization.buyer, nonce: p.authorization.nonce }),
          ]))
            ? true
            : undefined,
        );
      } finally {
        await chain.rpc.resume();
        await facilitator.stop();
      }
      const all = lines.join("");
      expect(lines.length).to.be.greaterThan(0);
      expect(all).not.to.contain(p.signature.slice(2, 40));
      expect(all).not.to.contain(token);
      expect(all).not.to.contain(secret);
      for (const role of [ROLE.relayer, ROLE.facilitator]) expect(all).not.to.contain(devKey(role).slice(2));
    });
  });
});
