import { expect } from "chai";
import { DEFAULTS } from "../../../ignition/modules/parts.ts";
import {
  atNextBlock,
  deployFundedEscrow,
  escrowHoldings,
  mined,
  mintTokens,
  networkHelpers,
  nonceOf,
  signDepositAuthorization,
  signExactPayment,
  signedDebit,
  USDC,
  viem,
} from "../fixtures.ts";

/** Money in and out of PaymentEscrow: deposits, delayed withdrawals and claims of earnings. */
describe("PaymentEscrow deposits, withdrawals and claims", function () {
  const DAY = 86_400n;

  async function setup() {
    const stack = await networkHelpers.loadFixture(deployFundedEscrow);
    const { buyer, relayer, payout, treasury, other } = stack.accounts;
    return { ...stack, buyer, payout, treasury, other, relayerAccount: { account: relayer.account } };
  }
  type Setup = Awaited<ReturnType<typeof setup>>;

  async function requestAt(stack: Setup, amount: bigint): Promise<bigint> {
    const receipt = await mined(
      stack,
      stack.escrow.write.requestWithdrawal([amount], { account: stack.buyer.account }),
    );
    const block = await stack.publicClient.getBlock({ blockNumber: receipt.blockNumber });
    return block.timestamp + DAY;
  }

  describe("deposit", function () {
    it("pulls the approved amount, credits the caller and emits Deposited(buyer, from, amount, balance)", async function () {
      const stack = await setup();
      const { escrow, token, other } = stack;
      await mintTokens(stack, other.account.address, 5n * USDC);
      await mined(stack, token.write.approve([escrow.address, 5n * USDC], { account: other.account }));
      await viem.assertions.emitWithArgs(
        escrow.write.deposit([2n * USDC], { account: other.account }),
        escrow,
        "Deposited",
        [other.account.address, other.account.address, 2n * USDC, 2n * USDC],
      );
      await viem.assertions.emitWithArgs(
        escrow.write.deposit([3n * USDC], { account: other.account }),
        escrow,
        "Deposited",
        [other.account.address, other.account.address, 3n * USDC, 5n * USDC],
      );
      expect(await escrow.read.balanceOf([other.account.address])).to.equal(5n * USDC);
      expect(await token.read.balanceOf([other.account.address])).to.equal(0n);
      const { held, owed } = await escrowHoldings(stack);
      expect(owed).to.equal(105n * USDC);
      expect(held).to.equal(owed);
    });

    it("reverts ZeroAmount for zero", async function () {
      const stack = await setup();
      await viem.assertions.revertWithCustomError(
        stack.escrow.write.deposit([0n], { account: stack.buyer.account }),
        stack.escrow,
        "ZeroAmount",
      );
    });

    it('bubbles the token\'s "transfer amount exceeds allowance" without an approval', async function () {
      const stack = await setup();
      await mintTokens(stack, stack.other.account.address, USDC);
      await viem.assertions.revertWith(
        stack.escrow.write.deposit([USDC], { account: stack.other.account }),
        "ERC20: transfer amount exceeds allowance",
      );
    });
  });

  describe("with a token address that holds no code", function () {
    it("reverts SafeERC20FailedOperation(token) instead of crediting a deposit that moved nothing", async function () {
      const stack = await setup();
      const { admin, treasury, other, buyer } = stack.accounts;
      const hollow = await viem.deployContract("PaymentEscrow", [
        other.account.address,
        stack.registry.address,
        treasury.account.address,
        500,
        admin.account.address,
        DEFAULTS.adminDelay,
      ]);
      await viem.assertions.revertWithCustomErrorWithArgs(
        hollow.write.deposit([USDC], { account: buyer.account }),
        hollow,
        "SafeERC20FailedOperation",
        [other.account.address],
      );
      expect(await hollow.read.totalLiabilities()).to.equal(0n);
    });
  });

  describe("depositFor", function () {
    it("credits the named buyer, paid by the caller, and emits Deposited(buyer, from, amount, balance)", async function () {
      const stack = await setup();
      const { escrow, token, other, buyer } = stack;
      await mintTokens(stack, other.account.address, USDC);
      await mined(stack, token.write.approve([escrow.address, USDC], { account: other.account }));
      await viem.assertions.emitWithArgs(
        escrow.write.depositFor([buyer.account.address, USDC], { account: other.account }),
        escrow,
        "Deposited",
        [buyer.account.address, other.account.address, USDC, 101n * USDC],
      );
      expect(await escrow.read.balanceOf([other.account.address])).to.equal(0n);
    });

    it("reverts ZeroAddress for the zero buyer and ZeroAmount for zero", async function () {
      const stack = await setup();
      const zero = "0x0000000000000000000000000000000000000000";
      await viem.assertions.revertWithCustomError(
        stack.escrow.write.depositFor([zero, 1n], { account: stack.buyer.account }),
        stack.escrow,
        "ZeroAddress",
      );
      await viem.assertions.revertWithCustomError(
        stack.escrow.write.depositFor([stack.other.account.address, 0n], { account: stack.buyer.account }),
        stack.escrow,
        "ZeroAmount",
      );
    });
  });

  describe("depositWithAuthorization", function () {
    it("credits `from` with its ReceiveWithAuthorization, whoever submits it", async function () {
      const stack = await setup();
      const { escrow, token, other } = stack;
      await mintTokens(stack, other.account.address, 3n * USDC);
      const auth = await signDepositAuthorization(stack, other, { value: 3n * USDC, nonce: nonceOf("deposit") });
      await viem.assertions.emitWithArgs(
        escrow.write.depositWithAuthorization(
          [auth.from, auth.value, auth.validAfter, auth.validBefore, auth.nonce, auth.signature],
          {
            account: stack.accounts.relayer.account,
          },
        ),
        escrow,
        "Deposited",
        [other.account.address, other.account.address, 3n * USDC, 3n * USDC],
      );
      expect(await token.read.balanceOf([other.account.address])).to.equal(0n);
      expect(await escrow.read.balanceOf([other.account.address])).to.equal(3n * USDC);
      expect(await escrow.read.balanceOf([stack.accounts.relayer.account.address])).to.equal(0n);
    });

    it("reverts ZeroAmount for zero", async function () {
      const stack = await setup();
      const auth = await signDepositAuthorization(stack, stack.other, { value: 0n, nonce: nonceOf("zero") });
      await viem.assertions.revertWithCustomError(
        stack.escrow.write.depositWithAuthorization(
          [auth.from, 0n, auth.validAfter, auth.validBefore, auth.nonce, auth.signature],
          {
            account: stack.other.account,
          },
        ),
        stack.escrow,
        "ZeroAmount",
      );
    });

    it("refuses a TransferWithAuthorization signature: only a ReceiveWithAuthorization deposits", async function () {
      const stack = await setup();
      await mintTokens(stack, stack.other.account.address, USDC);
      const transfer = await signExactPayment(stack, stack.other, {
        resourceId: stack.resourceId,
        value: USDC,
        nonce: nonceOf("t"),
      });
      await viem.assertions.revertWith(
        stack.escrow.write.depositWithAuthorization(
          [
            transfer.from,
            transfer.value,
            transfer.validAfter,
            transfer.validBefore,
            transfer.nonce,
            transfer.signature,
          ],
          { account: stack.other.account },
        ),
        "FiatTokenV2: invalid signature",
      );
    });

    it('bubbles the token\'s "authorization is used or canceled" for a replayed authorization', async function () {
      const stack = await setup();
      await mintTokens(stack, stack.other.account.address, 2n * USDC);
      const auth = await signDepositAuthorization(stack, stack.other, { value: USDC, nonce: nonceOf("once") });
      const args = [auth.from, auth.value, auth.validAfter, auth.validBefore, auth.nonce, auth.signature] as const;
      await mined(stack, stack.escrow.write.depositWithAuthorization(args, { account: stack.other.account }));
      await viem.assertions.revertWith(
        stack.escrow.write.depositWithAuthorization(args, { account: stack.other.account }),
        "FiatTokenV2: authorization is used or canceled",
      );
      expect(await stack.escrow.read.balanceOf([stack.other.account.address])).to.equal(USDC);
    });
  });

  describe("requestWithdrawal", function () {
    it("records the amount and unlock time and emits WithdrawalRequested(buyer, amount, unlocksAt)", async function () {
      const stack = await setup();
      const now = BigInt(await networkHelpers.time.latest());
      await atNextBlock(now + 5n, () =>
        viem.assertions.emitWithArgs(
          stack.escrow.write.requestWithdrawal([USDC], { account: stack.buyer.account }),
          stack.escrow,
          "WithdrawalRequested",
          [stack.buyer.account.address, USDC, now + 5n + DAY],
        ),
      );
      expect(await stack.escrow.read.pendingWithdrawal([stack.buyer.account.address])).to.deep.equal([
        USDC,
        now + 5n + DAY,
      ]);
      expect(await stack.escrow.read.WITHDRAWAL_DELAY()).to.equal(DAY);
    });

    it("reverts ZeroAmount for zero and InsufficientEscrow(buyer, balance, amount) above the balance", async function () {
      const stack = await setup();
      await viem.assertions.revertWithCustomError(
        stack.escrow.write.requestWithdrawal([0n], { account: stack.buyer.account }),
        stack.escrow,
        "ZeroAmount",
      );
      await viem.assertions.revertWithCustomErrorWithArgs(
        stack.escrow.write.requestWithdrawal([100n * USDC + 1n], { account: stack.buyer.account }),
        stack.escrow,
        "InsufficientEscrow",
        [stack.buyer.account.address, 100n * USDC, 100n * USDC + 1n],
      );
    });

    it("replaces an earlier request and restarts the delay", async function () {
      const stack = await setup();
      const first = await requestAt(stack, USDC);
      await networkHelpers.time.increase(3_600);
      const second = await requestAt(stack, 2n * USDC);
      expect(second > first).to.equal(true);
      await atNextBlock(first, () =>
        viem.assertions.revertWithCustomErrorWithArgs(
          stack.escrow.write.withdraw({ account: stack.buyer.account }),
          stack.escrow,
          "WithdrawalLocked",
          [stack.buyer.account.address, second],
        ),
      );
      await networkHelpers.time.increaseTo(second);
      await viem.assertions.emitWithArgs(
        stack.escrow.write.withdraw({ account: stack.buyer.account }),
        stack.escrow,
        "Withdrawn",
        [stack.buyer.account.address, 2n * USDC, 98n * USDC],
      );
    });
  });

  describe("withdraw", function () {
    it("reverts WithdrawalLocked(buyer, 0) without a request", async function () {
      const stack = await setup();
      await viem.assertions.revertWithCustomErrorWithArgs(
        stack.escrow.write.withdraw({ account: stack.buyer.account }),
        stack.escrow,
        "WithdrawalLocked",
        [stack.buyer.account.address, 0n],
      );
    });

    it("reverts WithdrawalLocked(buyer, unlocksAt) one second before the delay has passed", async function () {
      const stack = await setup();
      const unlocksAt = await requestAt(stack, USDC);
      await atNextBlock(unlocksAt - 1n, () =>
        viem.assertions.revertWithCustomErrorWithArgs(
          stack.escrow.write.withdraw({ account: stack.buyer.account }),
          stack.escrow,
          "WithdrawalLocked",
          [stack.buyer.account.address, unlocksAt],
        ),
      );
    });

    it("pays out at unlocksAt, emits Withdrawn(buyer, amount, balance) and clears the request", async function () {
      const stack = await setup();
      const unlocksAt = await requestAt(stack, 30n * USDC);
      const before = await stack.token.read.balanceOf([stack.buyer.account.address]);
      await atNextBlock(unlocksAt, () =>
        viem.assertions.emitWithArgs(
          stack.escrow.write.withdraw({ account: stack.buyer.account }),
          stack.escrow,
          "Withdrawn",
          [stack.buyer.account.address, 30n * USDC, 70n * USDC],
        ),
      );
      expect(await stack.token.read.balanceOf([stack.buyer.account.address])).to.equal(before + 30n * USDC);
      expect(await stack.escrow.read.balanceOf([stack.buyer.account.address])).to.equal(70n * USDC);
      expect(await stack.escrow.read.pendingWithdrawal([stack.buyer.account.address])).to.deep.equal([0n, 0n]);
      const { held, owed } = await escrowHoldings(stack);
      expect({ held, owed }).to.deep.equal({ held: 70n * USDC, owed: 70n * USDC });
      await viem.assertions.revertWithCustomErrorWithArgs(
        stack.escrow.write.withdraw({ account: stack.buyer.account }),
        stack.escrow,
        "WithdrawalLocked",
        [stack.buyer.account.address, 0n],
      );
    });

    it("lets debits continue while a withdrawal is pending and pays out only what is left", async function () {
      const stack = await setup();
      await requestAt(stack, 100n * USDC);
      const item = await signedDebit(stack, {
        resourceId: stack.resourceId,
        maxAmount: 100n * USDC,
        amount: 40n * USDC,
      });
      await mined(stack, stack.escrow.write.debit([item], stack.relayerAccount));
      await networkHelpers.time.increase(Number(DAY));
      await viem.assertions.emitWithArgs(
        stack.escrow.write.withdraw({ account: stack.buyer.account }),
        stack.escrow,
        "Withdrawn",
        [stack.buyer.account.address, 60n * USDC, 0n],
      );
      expect(await stack.escrow.read.earningsOf([stack.payout.account.address])).to.equal(38n * USDC);
    });

    it("reverts ZeroAmount when debits left nothing to withdraw", async function () {
      const stack = await setup();
      await requestAt(stack, 100n * USDC);
      const item = await signedDebit(stack, {
        resourceId: stack.resourceId,
        maxAmount: 100n * USDC,
        amount: 100n * USDC,
      });
      await mined(stack, stack.escrow.write.debit([item], stack.relayerAccount));
      await networkHelpers.time.increase(Number(DAY));
      await viem.assertions.revertWithCustomError(
        stack.escrow.write.withdraw({ account: stack.buyer.account }),
        stack.escrow,
        "ZeroAmount",
      );
    });
  });

  describe("claim", function () {
    async function withEarnings() {
      const stack = await setup();
      const item = await signedDebit(stack, { resourceId: stack.resourceId, amount: 10_000n });
      await mined(stack, stack.escrow.write.debit([item], stack.relayerAccount));
      return stack;
    }

    it("sends the creator's earnings to `to` and emits EarningsClaimed(account, to, amount)", async function () {
      const stack = await withEarnings();
      const { escrow, token, payout, other } = stack;
      await viem.assertions.emitWithArgs(
        escrow.write.claim([other.account.address], { account: payout.account }),
        escrow,
        "EarningsClaimed",
        [payout.account.address, other.account.address, 9_500n],
      );
      expect(await token.read.balanceOf([other.account.address])).to.equal(9_500n);
      expect(await escrow.read.earningsOf([payout.account.address])).to.equal(0n);
      const { held, owed } = await escrowHoldings(stack);
      expect(held).to.equal(owed);
    });

    it("returns the amount claimed", async function () {
      const stack = await withEarnings();
      const { result } = await stack.escrow.simulate.claim([stack.payout.account.address], {
        account: stack.payout.account.address,
      });
      expect(result).to.equal(9_500n);
    });

    it("sends the treasury its fees", async function () {
      const stack = await withEarnings();
      await mined(
        stack,
        stack.escrow.write.claim([stack.treasury.account.address], { account: stack.treasury.account }),
      );
      expect(await stack.token.read.balanceOf([stack.treasury.account.address])).to.equal(500n);
    });

    it("reverts ZeroAddress for the zero recipient and ZeroAmount with nothing to claim", async function () {
      const stack = await withEarnings();
      const zero = "0x0000000000000000000000000000000000000000";
      await viem.assertions.revertWithCustomError(
        stack.escrow.write.claim([zero], { account: stack.payout.account }),
        stack.escrow,
        "ZeroAddress",
      );
      await viem.assertions.revertWithCustomError(
        stack.escrow.write.claim([stack.other.account.address], { account: stack.other.account }),
        stack.escrow,
        "ZeroAmount",
      );
      await mined(stack, stack.escrow.write.claim([stack.payout.account.address], { account: stack.payout.account }));
      await viem.assertions.revertWithCustomError(
        stack.escrow.write.claim([stack.payout.account.address], { account: stack.payout.account }),
        stack.escrow,
        "ZeroAmount",
      );
    });

    it("never lets a buyer claim its escrow balance as earnings", async function () {
      const stack = await withEarnings();
      await viem.assertions.revertWithCustomError(
        stack.escrow.write.claim([stack.buyer.account.address], { account: stack.buyer.account }),
        stack.escrow,
        "ZeroAmount",
      );
      expect(await stack.escrow.read.balanceOf([stack.buyer.account.address])).to.equal(100n * USDC - 10_000n);
    });
  });
});
