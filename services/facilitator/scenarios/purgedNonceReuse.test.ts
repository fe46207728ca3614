import { expect } from "chai";
import type { Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import type { LocalChain } from "../../../testkit/chain/localChain.ts";
import { devKey, startLocalChain } from "../../../testkit/chain/localChain.ts";
import { committedHarness, RESPONSE } from "../../../testkit/facilitator/committedHarness.ts";
import { manualClock, postJson, startFacilitator } from "../../../testkit/facilitator/startFacilitator.ts";
import { until } from "../../../testkit/until.ts";
import { signEscrowPayment } from "../../buyer/src/sdk/signPayment.ts";
import { RESERVATION_RETENTION_SECONDS } from "../backgroundWork.ts";
import { findDebit } from "../settlePayment.ts";

const CAP = 50_000n;

/**
 * A buyer reuses one of its own nonces that the escrow already debited, in a fresh authorization (a new window),
 * once the facilitator has purged that nonce's finished reservation (a day after its window closed). Verify shares a
 * buyer's state read on chain for a second, and a shared read says nothing of this nonce, so the store is the only
 * guard. Without permanent spent-nonce tombstones the reuse was reserved, the handler ran, and settle answered 200
 * `committed`; the debit was then skipped on chain (nonce spent), and when no block had been mined since, the retrier
 * even took the day-old `Debited` log for this payment's: a free call per old nonce, once a day, forever.
 */
describe("a buyer reusing an old nonce after its reservation was purged", function () {
  let chain: LocalChain;
  let resourceId: Hex;
  const buyer = privateKeyToAccount(devKey(17));

  before(async function () {
    chain = await startLocalChain();
    resourceId = await chain.registerResource({ slug: "echo-purged", cap: CAP });
    await chain.fundBuyer(17, 1_000_000n);
  });

  after(async function () {
    await chain?.close();
  });

  it("is refused nonce_used on every verify, shared snapshot or not, and nothing is debited", async function () {
    const clock = manualClock();
    const facilitator = await startFacilitator(chain, {
      clock,
      env: { SETTLEMENT: "committed", BATCH_WINDOW_MS: "20", BUYER_STATE_TTL_MS: "60000" },
    });
    const h = committedHarness({ chain, buyer, resourceId, cap: CAP });
    try {
      const old = [await h.pay(facilitator.url, 1_000n), await h.pay(facilitator.url, 1_000n)];
      for (const { payload } of old) await h.resultWhen(facilitator.url, payload.authorization.nonce, "confirmed");
      const balance = await h.balance();

      clock.advance(RESERVATION_RETENTION_SECONDS + 3_600);
      await until(async () => {
        const rows = await facilitator.ctx.store.query("SELECT 1 FROM reservation");
        return rows.length === 0 ? true : undefined;
      });

      for (const { payload } of old) {
        const nonce = payload.authorization.nonce;
        const reused = await signEscrowPayment({
          account: buyer,
          escrow: chain.addresses.escrow,
          resourceId,
          maxAmount: CAP,
          validBefore: BigInt(clock.now() + 600),
          nonce,
        });
        const verified = await h.verify(facilitator.url, reused);
        expect(verified.body, `old nonce ${nonce}`).to.include({ isValid: false, invalidReason: "nonce_used" });
        const settled = await postJson(`${facilitator.url}/settle`, {
          idemKey: nonce,
          resourceId,
          amount: "1000",
          response: RESPONSE,
        });
        expect(settled.status, "no receipt for a reused nonce").to.equal(409);
      }
      expect(await h.balance(), "the buyer paid nothing more").to.equal(balance);
    } finally {
      await facilitator.stop();
    }
  });

  it("findDebit takes only this authorization's debit, never an older one of the same nonce", async function () {
    const facilitator = await startFacilitator(chain, { env: { SETTLEMENT: "confirmed" } });
    const h = committedHarness({ chain, buyer, resourceId, cap: CAP });
    try {
      const { payload } = await h.pay(facilitator.url, 1_000n);
      const nonce = payload.authorization.nonce;
      const [debit] = await h.debitsOf(nonce);
      const reused = await h.sign({ nonce, validForSeconds: 900 });
      const reservation = {
        idemKey: nonce,
        scheme: "service-escrow" as const,
        buyer: buyer.address.toLowerCase() as Hex,
        resourceId,
        cap: CAP,
        payload: { scheme: reused.scheme, authorization: { ...reused.authorization }, signature: reused.signature },
        validBefore: Number(reused.authorization.validBefore),
        status: "settling" as const,
        amount: 1_000n,
        response: RESPONSE,
        txHash: null,
        // No block mined since the old debit: a snapshot read now names its block.
        fromBlock: debit?.blockNumber ?? 0n,
        committedAt: 1,
      };
      expect(await findDebit(facilitator.ctx, reservation), "another authorization's debit").to.equal(null);
      const original = { ...reservation, payload: { ...reservation.payload, signature: payload.signature } };
      expect((await findDebit(facilitator.ctx, original))?.transaction).to.equal(debit?.transactionHash);
    } finally {
      await facilitator.stop();
    }
  });
});
