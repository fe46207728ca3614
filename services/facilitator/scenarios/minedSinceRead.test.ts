import { expect } from "chai";
import type { Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import type { LocalChain } from "../../../testkit/chain/localChain.ts";
import { devKey, ROLE, startLocalChain } from "../../../testkit/chain/localChain.ts";
import { postJson, startFacilitator } from "../../../testkit/facilitator/startFacilitator.ts";
import { testStoreEnv } from "../../../testkit/postgres/testPostgres.ts";
import { signEscrowPayment } from "../../buyer/src/sdk/signPayment.ts";

const CAP = 50_000n;

/**
 * A verify reads the chain before it takes the buyer's lock. A debit mined after that read is not in the balance
 * it saw, and its reservation may already be marked settled: it must still count as held, or the same funds are
 * reserved twice. The race is made certain by handing verify a chain state read before the debit.
 */
for (const store of ["PGlite", "PostgreSQL"] as const) {
  describe(`verify after a debit mined since its chain read (${store})`, function () {
    let chain: LocalChain;
    let facilitator: Awaited<ReturnType<typeof startFacilitator>>;
    let resourceId: Hex;
    let db: Awaited<ReturnType<typeof testStoreEnv>> | undefined;
    const buyer = privateKeyToAccount(devKey(ROLE.other));

    before(async function () {
      chain = await startLocalChain();
      resourceId = await chain.registerResource({ slug: "echo", cap: CAP });
      await chain.fundBuyer(ROLE.other, CAP * 2n);
      db = await testStoreEnv(store, "mined_since_read");
      facilitator = await startFacilitator(chain, { env: db.env });
    });

    after(async function () {
      await facilitator?.stop();
      await chain?.close();
      await db?.drop();
    });

    const sign = () =>
      signEscrowPayment({
        account: buyer,
        escrow: chain.addresses.escrow,
        resourceId,
        maxAmount: CAP,
        validBefore: BigInt(Math.floor(Date.now() / 1000) + 600),
      });
    const verify = async () =>
      (await postJson(`${facilitator.url}/verify`, { paymentPayload: await sign(), resourceId, maxTimeoutSeconds: 60 }))
        .body;

    it("counts the mined debit as held, so the balance is not reserved twice", async function () {
      const chainReader = facilitator.ctx.chain;
      const readBeforeDebit = await chainReader.buyerState(buyer.address, `0x${"00".repeat(32)}`);
      expect(readBeforeDebit.balance).to.equal(CAP * 2n);

      const first = await verify();
      expect(first.isValid).to.equal(true);
      const settled = await postJson(`${facilitator.url}/settle`, {
        idemKey: first.idemKey,
        resourceId,
        amount: "2000",
        response: { status: 200, contentType: "application/json", body: { ok: 1 } },
      });
      expect(settled.status).to.equal(200);
      expect(await chain.contracts.escrow.read.balanceOf([buyer.address])).to.equal(CAP * 2n - 2000n);

      // From here on, verify sees the chain as it was before the debit (balance: two caps).
      const original = chainReader.buyerState;
      chainReader.buyerState = async () => readBeforeDebit;
      try {
        const second = await verify();
        expect(second.isValid).to.equal(true);
        // What is really left (two caps - 2000 - one reserved cap) is below a cap; the stale read alone would say one cap.
        const third = await verify();
        expect(third).to.include({ isValid: false, invalidReason: "insufficient_balance" });
      } finally {
        chainReader.buyerState = original;
      }
      // With a fresh read the answer is the same: the debit is in the balance and no longer counted as held.
      expect(await verify()).to.include({ isValid: false, invalidReason: "insufficient_balance" });
    });
  });
}
