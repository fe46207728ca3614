import { expect } from "chai";
import { encodeErrorResult, maxUint256 } from "viem";
import { deployFundedEscrow, networkHelpers, nonceOf, signedDebit, USDC, viem } from "../fixtures.ts";

/**
 * The buyer signs a cap (`maxAmount`); the relayer chooses the metered amount. An amount above the cap must
 * never be debited, however the relayer submits it.
 */
describe("debit of an amount over the signed cap", function () {
  async function setup() {
    const stack = await networkHelpers.loadFixture(deployFundedEscrow);
    return { ...stack, buyer: stack.accounts.buyer, relayerAccount: { account: stack.accounts.relayer.account } };
  }

  describe("when the amount is one unit over the cap", function () {
    it("reverts AmountExceedsMax(amount, maxAmount) and debits nothing", async function () {
      const stack = await setup();
      const item = await signedDebit(stack, { resourceId: stack.resourceId, maxAmount: 50_000n, amount: 50_001n });
      await viem.assertions.revertWithCustomErrorWithArgs(
        stack.escrow.write.debit([item], stack.relayerAccount),
        stack.escrow,
        "AmountExceedsMax",
        [50_001n, 50_000n],
      );
      expect(await stack.escrow.read.balanceOf([stack.buyer.account.address])).to.equal(100n * USDC);
      expect(await stack.escrow.read.nonceUsed([stack.buyer.account.address, item.authorization.nonce])).to.equal(
        false,
      );
    });

    it("debits the same authorization at exactly the cap", async function () {
      const stack = await setup();
      const item = await signedDebit(stack, { resourceId: stack.resourceId, maxAmount: 50_000n, amount: 50_000n });
      await viem.assertions.emit(stack.escrow.write.debit([item], stack.relayerAccount), stack.escrow, "BatchDebited");
    });
  });

  describe("when the cap is zero", function () {
    it("reverts AmountExceedsMax(1, 0) for any positive amount", async function () {
      const stack = await setup();
      const item = await signedDebit(stack, { resourceId: stack.resourceId, maxAmount: 0n, amount: 1n });
      await viem.assertions.revertWithCustomErrorWithArgs(
        stack.escrow.write.debit([item], stack.relayerAccount),
        stack.escrow,
        "AmountExceedsMax",
        [1n, 0n],
      );
    });
  });

  describe("when the amount is the largest uint256", function () {
    it("reverts AmountExceedsMax(2^256 - 1, cap) before any arithmetic", async function () {
      const stack = await setup();
      const item = await signedDebit(stack, { resourceId: stack.resourceId, maxAmount: 50_000n, amount: maxUint256 });
      await viem.assertions.revertWithCustomErrorWithArgs(
        stack.escrow.write.debit([item], stack.relayerAccount),
        stack.escrow,
        "AmountExceedsMax",
        [maxUint256, 50_000n],
      );
    });
  });

  describe("when the relayer raises the cap inside the authorization", function () {
    it("reverts InvalidSignature(buyer): the cap is signed", async function () {
      const stack = await setup();
      const item = await signedDebit(stack, { resourceId: stack.resourceId, maxAmount: 50_000n, amount: 60_000n });
      const raised = { ...item, authorization: { ...item.authorization, maxAmount: 60_000n } };
      await viem.assertions.revertWithCustomErrorWithArgs(
        stack.escrow.write.debit([raised], stack.relayerAccount),
        stack.escrow,
        "InvalidSignature",
        [stack.buyer.account.address],
      );
    });
  });

  describe("when the over-cap item is part of a batch", function () {
    it("skips it with DebitSkipped(..., AmountExceedsMax(amount, maxAmount)) and debits the rest", async function () {
      const stack = await setup();
      const over = await signedDebit(stack, {
        resourceId: stack.resourceId,
        nonce: nonceOf("over"),
        maxAmount: 1_000n,
        amount: 1_001n,
      });
      const fine = await signedDebit(stack, {
        resourceId: stack.resourceId,
        nonce: nonceOf("fine"),
        maxAmount: 1_000n,
        amount: 1_000n,
      });
      await viem.assertions.emitWithArgs(
        stack.escrow.write.debitBatch([[over, fine]], stack.relayerAccount),
        stack.escrow,
        "DebitSkipped",
        [
          stack.resourceId,
          stack.buyer.account.address,
          over.authorization.nonce,
          encodeErrorResult({ abi: stack.escrow.abi, errorName: "AmountExceedsMax", args: [1_001n, 1_000n] }),
        ],
      );
      expect(await stack.escrow.read.balanceOf([stack.buyer.account.address])).to.equal(100n * USDC - 1_000n);
    });
  });
});
