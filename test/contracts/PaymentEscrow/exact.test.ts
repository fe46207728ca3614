import { expect } from "chai";
import { getAddress } from "viem";
import {
  atNextBlock,
  deployFundedEscrow,
  escrowHoldings,
  expectDebited,
  mined,
  mintTokens,
  networkHelpers,
  nonceOf,
  signExactPayment,
  signedDebit,
  USDC,
  viem,
} from "../fixtures.ts";

/** PaymentEscrow.settleExact: the flat `exact` path, an EIP-3009 transfer to the escrow pulled and split like a debit. */
describe("PaymentEscrow.settleExact", function () {
  async function setup() {
    const stack = await networkHelpers.loadFixture(deployFundedEscrow);
    const { buyer, relayer, payout, treasury } = stack.accounts;
    await mintTokens(stack, buyer.account.address, 1n * USDC);
    return { ...stack, buyer, payout, treasury, relayerAccount: { account: relayer.account } };
  }

  describe("when the relayer settles the buyer's TransferWithAuthorization", function () {
    it("pulls the value from the buyer, splits it like a debit and logs it in BatchDebited", async function () {
      const stack = await setup();
      const { escrow, token, buyer } = stack;
      const payment = await signExactPayment(stack, buyer, { resourceId: stack.resourceId, value: 50_000n });
      const heldBefore = await token.read.balanceOf([escrow.address]);

      await expectDebited({ ...stack, escrow }, escrow.write.settleExact([payment], stack.relayerAccount), [
        stack.resourceId,
        buyer.account.address,
        payment.nonce,
        50_000n,
        2_500n,
      ]);

      expect(await token.read.balanceOf([buyer.account.address])).to.equal(1n * USDC - 50_000n);
      expect(await token.read.balanceOf([escrow.address])).to.equal(heldBefore + 50_000n);
      expect(await escrow.read.earningsOf([stack.payout.account.address])).to.equal(47_500n);
      expect(await escrow.read.earningsOf([stack.treasury.account.address])).to.equal(2_500n);
      expect(await escrow.read.nonceUsed([buyer.account.address, payment.nonce])).to.equal(true);
      expect(await token.read.authorizationState([buyer.account.address, payment.nonce])).to.equal(true);
    });

    it("leaves the buyer's escrow balance alone and keeps held == owed", async function () {
      const stack = await setup();
      const payment = await signExactPayment(stack, stack.buyer, { resourceId: stack.resourceId, value: 12_345n });
      await mined(stack, stack.escrow.write.settleExact([payment], stack.relayerAccount));
      expect(await stack.escrow.read.balanceOf([stack.buyer.account.address])).to.equal(100n * USDC);
      const { held, owed } = await escrowHoldings(stack);
      expect(held).to.equal(owed);
    });

    it("emits the token's AuthorizationUsed(from, nonce) for the pulled transfer", async function () {
      const stack = await setup();
      const payment = await signExactPayment(stack, stack.buyer, { resourceId: stack.resourceId, value: 1_000n });
      await viem.assertions.emitWithArgs(
        stack.escrow.write.settleExact([payment], stack.relayerAccount),
        stack.token,
        "AuthorizationUsed",
        [getAddress(stack.buyer.account.address), payment.nonce],
      );
    });
  });

  describe("when the payment cannot be settled", function () {
    it("reverts NonceAlreadyUsed(from, nonce) on a second settlement", async function () {
      const stack = await setup();
      const payment = await signExactPayment(stack, stack.buyer, { resourceId: stack.resourceId, value: 1_000n });
      await mined(stack, stack.escrow.write.settleExact([payment], stack.relayerAccount));
      await viem.assertions.revertWithCustomErrorWithArgs(
        stack.escrow.write.settleExact([payment], stack.relayerAccount),
        stack.escrow,
        "NonceAlreadyUsed",
        [stack.buyer.account.address, payment.nonce],
      );
    });

    it("reverts ZeroAmount for a zero value", async function () {
      const stack = await setup();
      const payment = await signExactPayment(stack, stack.buyer, { resourceId: stack.resourceId, value: 0n });
      await viem.assertions.revertWithCustomError(
        stack.escrow.write.settleExact([payment], stack.relayerAccount),
        stack.escrow,
        "ZeroAmount",
      );
    });

    it("reverts ResourceInactive(resourceId) for an unknown or deactivated resource", async function () {
      const stack = await setup();
      const unknown = nonceOf("unknown");
      const toUnknown = await signExactPayment(stack, stack.buyer, {
        resourceId: unknown,
        value: 1_000n,
        nonce: nonceOf("e1"),
      });
      await viem.assertions.revertWithCustomErrorWithArgs(
        stack.escrow.write.settleExact([toUnknown], stack.relayerAccount),
        stack.escrow,
        "ResourceInactive",
        [unknown],
      );
      await mined(
        stack,
        stack.registry.write.deactivate([stack.resourceId], { account: stack.accounts.creator.account }),
      );
      const toInactive = await signExactPayment(stack, stack.buyer, {
        resourceId: stack.resourceId,
        value: 1_000n,
        nonce: nonceOf("e2"),
      });
      await viem.assertions.revertWithCustomErrorWithArgs(
        stack.escrow.write.settleExact([toInactive], stack.relayerAccount),
        stack.escrow,
        "ResourceInactive",
        [stack.resourceId],
      );
    });

    it('bubbles the token\'s "authorization is expired" for an expired transfer', async function () {
      const stack = await setup();
      const now = BigInt(await networkHelpers.time.latest());
      const payment = await signExactPayment(stack, stack.buyer, {
        resourceId: stack.resourceId,
        value: 1_000n,
        validBefore: now + 60n,
      });
      await atNextBlock(now + 60n, () =>
        viem.assertions.revertWith(
          stack.escrow.write.settleExact([payment], stack.relayerAccount),
          "FiatTokenV2: authorization is expired",
        ),
      );
    });

    it('bubbles the token\'s "authorization is not yet valid" for a transfer not yet valid', async function () {
      const stack = await setup();
      const now = BigInt(await networkHelpers.time.latest());
      const payment = await signExactPayment(stack, stack.buyer, {
        resourceId: stack.resourceId,
        value: 1_000n,
        validAfter: now + 60n,
      });
      await atNextBlock(now + 60n, () =>
        viem.assertions.revertWith(
          stack.escrow.write.settleExact([payment], stack.relayerAccount),
          "FiatTokenV2: authorization is not yet valid",
        ),
      );
    });

    it('bubbles the token\'s "invalid signature" when the relayer changes the value', async function () {
      const stack = await setup();
      const payment = await signExactPayment(stack, stack.buyer, { resourceId: stack.resourceId, value: 1_000n });
      await viem.assertions.revertWith(
        stack.escrow.write.settleExact([{ ...payment, value: 1_001n }], stack.relayerAccount),
        "FiatTokenV2: invalid signature",
      );
    });

    it("cannot settle a transfer the buyer signed to another payee", async function () {
      const stack = await setup();
      const payment = await signExactPayment(stack, stack.buyer, {
        resourceId: stack.resourceId,
        value: 1_000n,
        to: stack.accounts.other.account.address,
      });
      await viem.assertions.revertWith(
        stack.escrow.write.settleExact([payment], stack.relayerAccount),
        "FiatTokenV2: invalid signature",
      );
    });

    it('bubbles the token\'s "transfer amount exceeds balance" when the buyer cannot pay', async function () {
      const stack = await setup();
      const payment = await signExactPayment(stack, stack.buyer, { resourceId: stack.resourceId, value: 2n * USDC });
      await viem.assertions.revertWith(
        stack.escrow.write.settleExact([payment], stack.relayerAccount),
        "ERC20: transfer amount exceeds balance",
      );
    });

    it("marks nothing settled when it reverts, so a corrected submission still goes through", async function () {
      const stack = await setup();
      const payment = await signExactPayment(stack, stack.buyer, { resourceId: stack.resourceId, value: 1_000n });
      await viem.assertions.revertWith(
        stack.escrow.write.settleExact([{ ...payment, value: 999n }], stack.relayerAccount),
        "FiatTokenV2: invalid signature",
      );
      expect(await stack.escrow.read.nonceUsed([stack.buyer.account.address, payment.nonce])).to.equal(false);
      await viem.assertions.emit(
        stack.escrow.write.settleExact([payment], stack.relayerAccount),
        stack.escrow,
        "BatchDebited",
      );
    });
  });

  describe("the exact and escrow paths", function () {
    it("share one nonce book: an exact nonce already spent by a debit reverts NonceAlreadyUsed(from, nonce)", async function () {
      const stack = await setup();
      const nonce = nonceOf("shared");
      const item = await signedDebit(stack, { resourceId: stack.resourceId, nonce, amount: 1_000n });
      await mined(stack, stack.escrow.write.debit([item], stack.relayerAccount));
      const payment = await signExactPayment(stack, stack.buyer, {
        resourceId: stack.resourceId,
        value: 1_000n,
        nonce,
      });
      await viem.assertions.revertWithCustomErrorWithArgs(
        stack.escrow.write.settleExact([payment], stack.relayerAccount),
        stack.escrow,
        "NonceAlreadyUsed",
        [stack.buyer.account.address, nonce],
      );
      expect(await stack.escrow.read.earningsOf([stack.payout.account.address])).to.equal(950n);
    });

    it("share one nonce book: a debit nonce already spent by an exact payment is skipped in a batch", async function () {
      const stack = await setup();
      const nonce = nonceOf("shared-2");
      const payment = await signExactPayment(stack, stack.buyer, {
        resourceId: stack.resourceId,
        value: 1_000n,
        nonce,
      });
      await mined(stack, stack.escrow.write.settleExact([payment], stack.relayerAccount));
      const item = await signedDebit(stack, { resourceId: stack.resourceId, nonce, amount: 1_000n });
      await viem.assertions.revertWithCustomErrorWithArgs(
        stack.escrow.write.debit([item], stack.relayerAccount),
        stack.escrow,
        "NonceAlreadyUsed",
        [stack.buyer.account.address, nonce],
      );
    });
  });
});
