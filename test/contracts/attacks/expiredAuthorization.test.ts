import { expect } from "chai";
import { encodeErrorResult } from "viem";
import {
  atNextBlock,
  deployFundedEscrow,
  mintTokens,
  networkHelpers,
  nonceOf,
  signExactPayment,
  signedDebit,
  USDC,
  viem,
} from "../fixtures.ts";

/**
 * An authorization is valid in [validAfter, validBefore) by the block clock. Outside that window it must not
 * debit, whether it is stale (expired) or early (not yet valid).
 */
describe("authorizations outside their validity window", function () {
  /**
   * The fixture, with `mint` stablecoin in the buyer's wallet first when given; `now` is read after every block the
   * setup mines, which automine stamps with the wall clock: a `now` read before a later mint could lie far behind
   * that block on a slow run, and a timestamp set from it would then go backwards.
   */
  async function setup(mint?: bigint) {
    const stack = await networkHelpers.loadFixture(deployFundedEscrow);
    if (mint !== undefined) await mintTokens(stack, stack.accounts.buyer.account.address, mint);
    const now = BigInt(await networkHelpers.time.latest());
    return { ...stack, now, buyer: stack.accounts.buyer, relayerAccount: { account: stack.accounts.relayer.account } };
  }

  describe("when the authorization has expired", function () {
    it("reverts AuthorizationExpired(validBefore, now) at validBefore exactly", async function () {
      const stack = await setup();
      const item = await signedDebit(stack, { resourceId: stack.resourceId, validBefore: stack.now + 60n });
      await atNextBlock(stack.now + 60n, () =>
        viem.assertions.revertWithCustomErrorWithArgs(
          stack.escrow.write.debit([item], stack.relayerAccount),
          stack.escrow,
          "AuthorizationExpired",
          [stack.now + 60n, stack.now + 60n],
        ),
      );
      expect(await stack.escrow.read.balanceOf([stack.buyer.account.address])).to.equal(100n * USDC);
    });

    it("reverts AuthorizationExpired(validBefore, now) a day later", async function () {
      const stack = await setup();
      const item = await signedDebit(stack, { resourceId: stack.resourceId, validBefore: stack.now + 60n });
      await atNextBlock(stack.now + 86_460n, () =>
        viem.assertions.revertWithCustomErrorWithArgs(
          stack.escrow.write.debit([item], stack.relayerAccount),
          stack.escrow,
          "AuthorizationExpired",
          [stack.now + 60n, stack.now + 86_460n],
        ),
      );
    });

    it("debits the same authorization one second before validBefore", async function () {
      const stack = await setup();
      const item = await signedDebit(stack, { resourceId: stack.resourceId, validBefore: stack.now + 60n, amount: 5n });
      await atNextBlock(stack.now + 59n, () =>
        viem.assertions.emit(stack.escrow.write.debit([item], stack.relayerAccount), stack.escrow, "BatchDebited"),
      );
    });

    it("skips it in a batch with DebitSkipped(..., AuthorizationExpired(validBefore, now))", async function () {
      const stack = await setup();
      const stale = await signedDebit(stack, {
        resourceId: stack.resourceId,
        nonce: nonceOf("stale"),
        validBefore: stack.now + 60n,
      });
      const fresh = await signedDebit(stack, {
        resourceId: stack.resourceId,
        nonce: nonceOf("fresh"),
        validBefore: stack.now + 600n,
        amount: 7n,
      });
      await atNextBlock(stack.now + 61n, () =>
        viem.assertions.emitWithArgs(
          stack.escrow.write.debitBatch([[stale, fresh]], stack.relayerAccount),
          stack.escrow,
          "DebitSkipped",
          [
            stack.resourceId,
            stack.buyer.account.address,
            stale.authorization.nonce,
            encodeErrorResult({
              abi: stack.escrow.abi,
              errorName: "AuthorizationExpired",
              args: [stack.now + 60n, stack.now + 61n],
            }),
          ],
        ),
      );
      expect(await stack.escrow.read.balanceOf([stack.buyer.account.address])).to.equal(100n * USDC - 7n);
    });

    it('lets the token refuse an expired exact payment: "authorization is expired"', async function () {
      const stack = await setup(USDC);
      const payment = await signExactPayment(stack, stack.buyer, {
        resourceId: stack.resourceId,
        value: 1_000n,
        validBefore: stack.now + 60n,
      });
      await atNextBlock(stack.now + 60n, () =>
        viem.assertions.revertWith(
          stack.escrow.write.settleExact([payment], stack.relayerAccount),
          "FiatTokenV2: authorization is expired",
        ),
      );
    });
  });

  describe("when the authorization is not yet valid", function () {
    it("reverts AuthorizationNotYetValid(validAfter, now) one second before validAfter", async function () {
      const stack = await setup();
      const item = await signedDebit(stack, {
        resourceId: stack.resourceId,
        validAfter: stack.now + 60n,
        validBefore: stack.now + 600n,
      });
      await atNextBlock(stack.now + 59n, () =>
        viem.assertions.revertWithCustomErrorWithArgs(
          stack.escrow.write.debit([item], stack.relayerAccount),
          stack.escrow,
          "AuthorizationNotYetValid",
          [stack.now + 60n, stack.now + 59n],
        ),
      );
    });

    it("debits from validAfter on (the window includes validAfter)", async function () {
      const stack = await setup();
      const item = await signedDebit(stack, {
        resourceId: stack.resourceId,
        validAfter: stack.now + 60n,
        validBefore: stack.now + 600n,
        amount: 5n,
      });
      await atNextBlock(stack.now + 60n, () =>
        viem.assertions.emit(stack.escrow.write.debit([item], stack.relayerAccount), stack.escrow, "BatchDebited"),
      );
    });

    it("skips it in a batch with DebitSkipped(..., AuthorizationNotYetValid(validAfter, now))", async function () {
      const stack = await setup();
      const early = await signedDebit(stack, {
        resourceId: stack.resourceId,
        validAfter: stack.now + 60n,
        validBefore: stack.now + 600n,
      });
      await atNextBlock(stack.now + 30n, () =>
        viem.assertions.emitWithArgs(
          stack.escrow.write.debitBatch([[early]], stack.relayerAccount),
          stack.escrow,
          "DebitSkipped",
          [
            stack.resourceId,
            stack.buyer.account.address,
            early.authorization.nonce,
            encodeErrorResult({
              abi: stack.escrow.abi,
              errorName: "AuthorizationNotYetValid",
              args: [stack.now + 60n, stack.now + 30n],
            }),
          ],
        ),
      );
    });

    it('lets the token refuse an exact payment before validAfter: "authorization is not yet valid"', async function () {
      const stack = await setup(USDC);
      const payment = await signExactPayment(stack, stack.buyer, {
        resourceId: stack.resourceId,
        value: 1_000n,
        validAfter: stack.now + 60n,
      });
      await atNextBlock(stack.now + 30n, () =>
        viem.assertions.revertWith(
          stack.escrow.write.settleExact([payment], stack.relayerAccount),
          "FiatTokenV2: authorization is not yet valid",
        ),
      );
    });
  });

  describe("when the window is empty (validAfter >= validBefore)", function () {
    it("never debits: not yet valid before, expired after", async function () {
      const stack = await setup();
      const item = await signedDebit(stack, {
        resourceId: stack.resourceId,
        validAfter: stack.now + 60n,
        validBefore: stack.now + 60n,
      });
      await atNextBlock(stack.now + 59n, () =>
        viem.assertions.revertWithCustomErrorWithArgs(
          stack.escrow.write.debit([item], stack.relayerAccount),
          stack.escrow,
          "AuthorizationNotYetValid",
          [stack.now + 60n, stack.now + 59n],
        ),
      );
      await atNextBlock(stack.now + 60n, () =>
        viem.assertions.revertWithCustomErrorWithArgs(
          stack.escrow.write.debit([item], stack.relayerAccount),
          stack.escrow,
          "AuthorizationExpired",
          [stack.now + 60n, stack.now + 60n],
        ),
      );
    });
  });
});
