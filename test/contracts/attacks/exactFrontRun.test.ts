import { expect } from "chai";
import { getAddress } from "viem";
import {
  deployFundedEscrow,
  escrowHoldings,
  mined,
  mintTokens,
  networkHelpers,
  nonceOf,
  signCancelAuthorization,
  signExactPayment,
  submitTransferToToken,
  USDC,
  viem,
} from "../fixtures.ts";

/**
 * An EIP-3009 TransferWithAuthorization can be submitted to the token by anyone. When someone submits the buyer's
 * `exact` payment before the relayer does, the funds arrive at the escrow outside a settlement. The chain cannot tell
 * that apart from a cancelled authorization or one spent elsewhere (all mark the nonce used), so `settleExact` refuses
 * every used authorization, and the funds are returned to the buyer from the surplus (`recoverSurplus`).
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

  describe("when someone submits the buyer's authorization to the token first", function () {
    it("leaves the funds in the escrow as surplus: held minus owed", async function () {
      const stack = await setup();
      await submitTransferToToken(stack, stack.payment, stack.other);
      const { held, owed } = await escrowHoldings(stack);
      expect(held - owed).to.equal(50_000n);
      expect(await stack.token.read.authorizationState([stack.buyer.account.address, stack.payment.nonce])).to.equal(
        true,
      );
    });

    it("refuses to settle it: AuthorizationAlreadyUsed(from, nonce), nothing credited, the nonce left unspent", async function () {
      const stack = await setup();
      await submitTransferToToken(stack, stack.payment, stack.other);
      await viem.assertions.revertWithCustomErrorWithArgs(
        stack.escrow.write.settleExact([stack.payment], stack.relayerAccount),
        stack.escrow,
        "AuthorizationAlreadyUsed",
        [getAddress(stack.buyer.account.address), stack.payment.nonce],
      );
      expect(await stack.escrow.read.earningsOf([stack.payout.account.address])).to.equal(0n);
      expect(await stack.escrow.read.nonceUsed([stack.buyer.account.address, stack.payment.nonce])).to.equal(false);
    });

    it("lets the admin return the funds to the buyer: nothing is stranded", async function () {
      const stack = await setup();
      const before = await stack.token.read.balanceOf([stack.buyer.account.address]);
      await submitTransferToToken(stack, stack.payment, stack.other);
      await mined(
        stack,
        stack.escrow.write.recoverSurplus([stack.buyer.account.address, 50_000n], {
          account: stack.accounts.admin.account,
        }),
      );
      expect(await stack.token.read.balanceOf([stack.buyer.account.address])).to.equal(before);
      const { held, owed } = await escrowHoldings(stack);
      expect(held).to.equal(owed);
    });
  });

  describe("when the buyer cancelled the authorization", function () {
    it("reverts AuthorizationAlreadyUsed(from, nonce) even while stray funds are held", async function () {
      const stack = await setup();
      await mintTokens(stack, stack.escrow.address, 50_000n);
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
        "AuthorizationAlreadyUsed",
        [getAddress(stack.buyer.account.address), stack.payment.nonce],
      );
      expect(await stack.escrow.read.earningsOf([stack.payout.account.address])).to.equal(0n);
    });
  });

  describe("when the relayer claims a value the buyer did not sign", function () {
    it("reverts at the token: the signature does not cover it", async function () {
      const stack = await setup();
      await viem.assertions.revertWith(
        stack.escrow.write.settleExact([{ ...stack.payment, value: 100_000n }], stack.relayerAccount),
        "FiatTokenV2: invalid signature",
      );
    });
  });
});
