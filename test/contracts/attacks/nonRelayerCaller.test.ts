import { expect } from "chai";
import { keccak256, toHex } from "viem";
import { compactDebit } from "../../../services/facilitator/relayer/compactDebit.ts";
import type { Signer } from "../fixtures.ts";
import {
  deployFundedEscrow,
  mined,
  mintTokens,
  networkHelpers,
  signExactPayment,
  signedDebit,
  USDC,
  viem,
} from "../fixtures.ts";

/**
 * Only the relayer debits. A buyer's signed authorization in anyone else's hands (the creator, the buyer itself,
 * the admin, a stranger) must not move funds through debit, debitBatch, debitBatchCompact or settleExact.
 */
describe("debits submitted by a caller without RELAYER_ROLE", function () {
  const RELAYER_ROLE = keccak256(toHex("RELAYER_ROLE"));

  async function setup() {
    const stack = await networkHelpers.loadFixture(deployFundedEscrow);
    await mintTokens(stack, stack.accounts.buyer.account.address, USDC);
    const item = await signedDebit(stack, { resourceId: stack.resourceId, amount: 1_000n });
    const payment = await signExactPayment(stack, stack.accounts.buyer, {
      resourceId: stack.resourceId,
      value: 1_000n,
    });
    const { buyer, creator, admin, other, payout, treasury } = stack.accounts;
    const callers: Array<[string, Signer]> = [
      ["the buyer", buyer],
      ["the creator", creator],
      ["the creator's payout", payout],
      ["the admin", admin],
      ["the treasury", treasury],
      ["a stranger", other],
    ];
    return { ...stack, item, payment, callers };
  }

  for (const fn of ["debit", "debitBatch", "debitBatchCompact", "settleExact"] as const) {
    describe(`when they call ${fn}`, function () {
      it("reverts AccessControlUnauthorizedAccount(caller, RELAYER_ROLE) for each of them and moves nothing", async function () {
        const stack = await setup();
        const { escrow, item, payment } = stack;
        for (const [, caller] of stack.callers) {
          const account = { account: caller.account };
          const promise =
            fn === "debit"
              ? escrow.write.debit([item], account)
              : fn === "debitBatch"
                ? escrow.write.debitBatch([[item]], account)
                : fn === "debitBatchCompact"
                  ? escrow.write.debitBatchCompact([[compactDebit(item)!]], account)
                  : escrow.write.settleExact([payment], account);
          await viem.assertions.revertWithCustomErrorWithArgs(promise, escrow, "AccessControlUnauthorizedAccount", [
            caller.account.address,
            RELAYER_ROLE,
          ]);
        }
        expect(await escrow.read.balanceOf([stack.accounts.buyer.account.address])).to.equal(100n * USDC);
        expect(await escrow.read.nonceUsed([stack.accounts.buyer.account.address, item.authorization.nonce])).to.equal(
          false,
        );
        expect(await escrow.read.nonceUsed([stack.accounts.buyer.account.address, payment.nonce])).to.equal(false);
        expect(await escrow.read.earningsOf([stack.accounts.payout.account.address])).to.equal(0n);
      });
    });
  }

  describe("when the relayer's role has been revoked", function () {
    it("reverts AccessControlUnauthorizedAccount(relayer, RELAYER_ROLE)", async function () {
      const stack = await setup();
      const { relayer, admin } = stack.accounts;
      await mined(
        stack,
        stack.escrow.write.revokeRole([RELAYER_ROLE, relayer.account.address], { account: admin.account }),
      );
      await viem.assertions.revertWithCustomErrorWithArgs(
        stack.escrow.write.debit([stack.item], { account: relayer.account }),
        stack.escrow,
        "AccessControlUnauthorizedAccount",
        [relayer.account.address, RELAYER_ROLE],
      );
    });
  });

  describe("when the caller is the relayer", function () {
    it("debits the very same item", async function () {
      const stack = await setup();
      await viem.assertions.emit(
        stack.escrow.write.debit([stack.item], { account: stack.accounts.relayer.account }),
        stack.escrow,
        "BatchDebited",
      );
    });
  });
});
