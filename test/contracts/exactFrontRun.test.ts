import { expect } from "chai";
import { getAddress } from "viem";
import type { ExactPayment, Signer, Stack } from "./fixtures.ts";
import {
  deployFundedEscrow,
  escrowHoldings,
  mined,
  mintTokens,
  networkHelpers,
  nonceOf,
  signCancelAuthorization,
  signExactPayment,
  USDC,
  viem,
} from "./fixtures.ts";

/**
 * An EIP-3009 TransferWithAuthorization can be submitted to the token by anyone. When someone submits the buyer's
 * `exact` payment before the relayer does, the funds arrive at the escrow unaccounted for: they must not be
 * stranded (the relayer's settleExact still splits them) and must not be counted twice.
 */
describe("exact payment front-run at the token", function () {
  async function setup() {
    const stack = await networkHelpers.loadFixture(deployFundedEscrow);
    const { buyer, relayer, other, payout, treasury } = stack.accounts;
    await mintTokens(stack, buyer.account.address, USDC);
    const payment = await signExactPayment(stack, buyer, {
      resourceId: stack.resourceId,
      value: 50_000n,
      nonce: nonceOf("exact"),
    });
    return { ...stack, buyer, other, payout, treasury, payment, relayerAccount: { account: relayer.account } };
  }

  async function frontRun(stack: Stack, payment: ExactPayment, by: Signer) {
    return mined(
      stack,
      stack.token.write.transferWithAuthorization(
        [
          payment.from,
          stack.escrow.address,
          payment.value,
          payment.validAfter,
          payment.validBefore,
          payment.nonce,
          payment.signature,
        ],
        { account: by.account },
      ),
    );
  }

  describe("when someone submits the buyer's authorization to the token first", function () {
    it("leaves the funds in the escrow, unaccounted for until the relayer settles", async function () {
      const stack = await setup();
      await frontRun(stack, stack.payment, stack.other);
      const { held, owed } = await escrowHoldings(stack);
      expect(held - owed).to.equal(50_000n);
      expect(await stack.token.read.authorizationState([stack.buyer.account.address, stack.payment.nonce])).to.equal(
        true,
      );
    });

    it("still splits them when the relayer settles: Debited(resourceId, from, nonce, value, payout, creator, treasury)", async function () {
      const stack = await setup();
      await frontRun(stack, stack.payment, stack.other);
      const buyerTokens = await stack.token.read.balanceOf([stack.buyer.account.address]);
      await viem.assertions.emitWithArgs(
        stack.escrow.write.settleExact([stack.payment], stack.relayerAccount),
        stack.escrow,
        "Debited",
        [stack.resourceId, stack.buyer.account.address, stack.payment.nonce, 50_000n, 2_500n],
      );
      expect(await stack.token.read.balanceOf([stack.buyer.account.address])).to.equal(buyerTokens);
      expect(await stack.escrow.read.earningsOf([stack.payout.account.address])).to.equal(47_500n);
      expect(await stack.escrow.read.earningsOf([stack.treasury.account.address])).to.equal(2_500n);
      const { held, owed } = await escrowHoldings(stack);
      expect(held).to.equal(owed);
    });

    it("lets the creator claim the front-run funds: nothing is stranded", async function () {
      const stack = await setup();
      await frontRun(stack, stack.payment, stack.other);
      await mined(stack, stack.escrow.write.settleExact([stack.payment], stack.relayerAccount));
      await mined(stack, stack.escrow.write.claim([stack.payout.account.address], { account: stack.payout.account }));
      expect(await stack.token.read.balanceOf([stack.payout.account.address])).to.equal(47_500n);
    });

    it("counts them once: a second settleExact reverts NonceAlreadyUsed(from, nonce)", async function () {
      const stack = await setup();
      await frontRun(stack, stack.payment, stack.other);
      await mined(stack, stack.escrow.write.settleExact([stack.payment], stack.relayerAccount));
      await viem.assertions.revertWithCustomErrorWithArgs(
        stack.escrow.write.settleExact([stack.payment], stack.relayerAccount),
        stack.escrow,
        "NonceAlreadyUsed",
        [stack.buyer.account.address, stack.payment.nonce],
      );
      expect(await stack.escrow.read.earningsOf([stack.payout.account.address])).to.equal(47_500n);
      const { held, owed } = await escrowHoldings(stack);
      expect(held).to.equal(owed);
    });

    it("settles after validBefore has passed: the transfer already happened", async function () {
      const stack = await setup();
      await frontRun(stack, stack.payment, stack.other);
      await networkHelpers.time.increaseTo(stack.payment.validBefore + 1n);
      await viem.assertions.emit(
        stack.escrow.write.settleExact([stack.payment], stack.relayerAccount),
        stack.escrow,
        "Debited",
      );
    });

    it("reverts InvalidSignature(from) when the relayer claims a larger value than the buyer signed", async function () {
      const stack = await setup();
      await frontRun(stack, stack.payment, stack.other);
      await mintTokens(stack, stack.escrow.address, 50_000n);
      await viem.assertions.revertWithCustomErrorWithArgs(
        stack.escrow.write.settleExact([{ ...stack.payment, value: 100_000n }], stack.relayerAccount),
        stack.escrow,
        "InvalidSignature",
        [stack.buyer.account.address],
      );
    });
  });

  describe("when the buyer cancelled the authorization and no funds arrived", function () {
    it("reverts UnaccountedFundsMissing(available, needed)", async function () {
      const stack = await setup();
      const cancel = await signCancelAuthorization(stack, stack.buyer, stack.payment.nonce);
      await viem.assertions.emitWithArgs(
        stack.token.write.cancelAuthorization([getAddress(stack.buyer.account.address), stack.payment.nonce, cancel], {
          account: stack.buyer.account,
        }),
        stack.token,
        "AuthorizationCanceled",
        [stack.buyer.account.address, stack.payment.nonce],
      );
      await viem.assertions.revertWithCustomErrorWithArgs(
        stack.escrow.write.settleExact([stack.payment], stack.relayerAccount),
        stack.escrow,
        "UnaccountedFundsMissing",
        [0n, 50_000n],
      );
      expect(await stack.escrow.read.nonceUsed([stack.buyer.account.address, stack.payment.nonce])).to.equal(false);
      expect(await stack.escrow.read.earningsOf([stack.payout.account.address])).to.equal(0n);
    });

    it("reverts UnaccountedFundsMissing(available, needed) when the stray funds are fewer than the value", async function () {
      const stack = await setup();
      await mintTokens(stack, stack.escrow.address, 49_999n);
      const cancel = await signCancelAuthorization(stack, stack.buyer, stack.payment.nonce);
      await mined(
        stack,
        stack.token.write.cancelAuthorization([getAddress(stack.buyer.account.address), stack.payment.nonce, cancel], {
          account: stack.buyer.account,
        }),
      );
      await viem.assertions.revertWithCustomErrorWithArgs(
        stack.escrow.write.settleExact([stack.payment], stack.relayerAccount),
        stack.escrow,
        "UnaccountedFundsMissing",
        [49_999n, 50_000n],
      );
    });
  });

  describe("when the nonce was spent on a transfer to someone else", function () {
    it("reverts UnaccountedFundsMissing(0, value): the escrow received nothing for it", async function () {
      const stack = await setup();
      const elsewhere = await signExactPayment(stack, stack.buyer, {
        resourceId: stack.resourceId,
        value: 50_000n,
        nonce: stack.payment.nonce,
        to: stack.other.account.address,
      });
      await mined(
        stack,
        stack.token.write.transferWithAuthorization(
          [
            elsewhere.from,
            stack.other.account.address,
            elsewhere.value,
            elsewhere.validAfter,
            elsewhere.validBefore,
            elsewhere.nonce,
            elsewhere.signature,
          ],
          { account: stack.other.account },
        ),
      );
      await viem.assertions.revertWithCustomErrorWithArgs(
        stack.escrow.write.settleExact([stack.payment], stack.relayerAccount),
        stack.escrow,
        "UnaccountedFundsMissing",
        [0n, 50_000n],
      );
    });
  });

  describe("when two payments are in flight, one front-run and one cancelled", function () {
    it("never credits more than the funds that arrived, whichever the relayer settles first", async function () {
      const stack = await setup();
      const second = await signExactPayment(stack, stack.buyer, {
        resourceId: stack.resourceId,
        value: 50_000n,
        nonce: nonceOf("second"),
      });
      await frontRun(stack, stack.payment, stack.other);
      const cancel = await signCancelAuthorization(stack, stack.buyer, second.nonce);
      await mined(
        stack,
        stack.token.write.cancelAuthorization([getAddress(stack.buyer.account.address), second.nonce, cancel], {
          account: stack.buyer.account,
        }),
      );

      await mined(stack, stack.escrow.write.settleExact([second], stack.relayerAccount));
      await viem.assertions.revertWithCustomErrorWithArgs(
        stack.escrow.write.settleExact([stack.payment], stack.relayerAccount),
        stack.escrow,
        "UnaccountedFundsMissing",
        [0n, 50_000n],
      );
      const credited =
        (await stack.escrow.read.earningsOf([stack.payout.account.address])) +
        (await stack.escrow.read.earningsOf([stack.treasury.account.address]));
      expect(credited).to.equal(50_000n);
      const { held, owed } = await escrowHoldings(stack);
      expect(held).to.equal(owed);
    });
  });
});
