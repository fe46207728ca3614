import { expect } from "chai";
import type { Hex } from "viem";
import { encodeErrorResult, encodeFunctionData, getAddress, parseEventLogs } from "viem";
import { DEFAULTS } from "../../../ignition/modules/parts.ts";
import {
  buildDebitAuthorization,
  debitLogs,
  deployFundedEscrow,
  expectDebited,
  mined,
  networkHelpers,
  nonceOf,
  registerResource,
  signDebit,
  signedDebit,
  USDC,
  viem,
} from "../fixtures.ts";

/**
 * Reentrancy through the two kinds of code the escrow calls: the token (on every transfer) and a contract
 * buyer's ERC-1271 `isValidSignature`. A hostile token that calls back into the escrow mid-transfer must hit the
 * reentrancy guard; a hostile wallet must not be able to change any state while its signature is checked.
 */
describe("reentrancy", function () {
  const DAY = 86_400;

  /** The stack, plus a second escrow bound to a hostile token that calls back on every transfer. */
  async function deployHostileEscrow() {
    const stack = await deployFundedEscrow();
    const { admin, relayer, treasury, buyer } = stack.accounts;
    const hostile = await viem.deployContract("HostileToken");
    const escrow = await viem.deployContract("PaymentEscrow", [
      hostile.address,
      stack.registry.address,
      treasury.account.address,
      500,
      admin.account.address,
      DEFAULTS.adminDelay,
    ]);
    await mined(
      stack,
      escrow.write.grantRole([await escrow.read.RELAYER_ROLE(), relayer.account.address], { account: admin.account }),
    );
    const { resourceId: hostilePayoutResource } = await registerResource(stack, {
      slug: "hostile payout",
      payout: hostile.address,
    });
    await mined(stack, hostile.write.mint([buyer.account.address, 10n * USDC]));
    await mined(stack, hostile.write.approve([escrow.address, 10n * USDC], { account: buyer.account }));
    return { ...stack, hostile, hostileEscrow: escrow, hostilePayoutResource };
  }

  async function setup() {
    const stack = await networkHelpers.loadFixture(deployHostileEscrow);
    return { ...stack, buyer: stack.accounts.buyer, relayerAccount: { account: stack.accounts.relayer.account } };
  }
  type Setup = Awaited<ReturnType<typeof setup>>;

  function reentrantCallError(stack: Setup): Hex {
    return encodeErrorResult({ abi: stack.hostileEscrow.abi, errorName: "ReentrancyGuardReentrantCall" });
  }

  /** Calldata of an escrow function, for the hostile token or wallet to call. */
  function escrowCall(stack: Setup, call: { functionName: string; args?: readonly unknown[] }): Hex {
    return encodeFunctionData({ abi: stack.hostileEscrow.abi, ...call } as Parameters<typeof encodeFunctionData>[0]);
  }

  /** Makes the hostile token itself a buyer with `amount` in the hostile escrow and a withdrawal of it unlocked. */
  async function tokenAsBuyerWithUnlockedWithdrawal(stack: Setup, amount: bigint) {
    const { hostile, hostileEscrow } = stack;
    await mined(stack, hostile.write.mint([hostile.address, amount]));
    await mined(
      stack,
      hostile.write.execute([
        hostile.address,
        encodeFunctionData({ abi: hostile.abi, functionName: "approve", args: [hostileEscrow.address, amount] }),
      ]),
    );
    await mined(
      stack,
      hostile.write.execute([hostileEscrow.address, escrowCall(stack, { functionName: "deposit", args: [amount] })]),
    );
    await mined(
      stack,
      hostile.write.execute([
        hostileEscrow.address,
        escrowCall(stack, { functionName: "requestWithdrawal", args: [amount] }),
      ]),
    );
    await networkHelpers.time.increase(DAY);
  }

  /** Credits the hostile token, as a resource's payout, with creator earnings in the hostile escrow. */
  async function tokenAsPayoutWithEarnings(stack: Setup) {
    await mined(stack, stack.hostileEscrow.write.deposit([USDC], { account: stack.buyer.account }));
    const authorization = await buildDebitAuthorization(stack, {
      resourceId: stack.hostilePayoutResource,
      nonce: nonceOf("earn"),
    });
    const signature = await signDebit(stack.hostileEscrow.address, stack.buyer, authorization);
    await mined(
      stack,
      stack.hostileEscrow.write.debit([{ authorization, amount: 10_000n, signature }], stack.relayerAccount),
    );
    expect(await stack.hostileEscrow.read.earningsOf([stack.hostile.address])).to.equal(9_500n);
  }

  describe("when a hostile token reenters during withdraw", function () {
    it("reverts ReentrancyGuardReentrantCall when it calls withdraw again", async function () {
      const stack = await setup();
      await tokenAsBuyerWithUnlockedWithdrawal(stack, 1_000n);
      await mined(
        stack,
        stack.hostile.write.arm([stack.hostileEscrow.address, escrowCall(stack, { functionName: "withdraw" }), true]),
      );
      await viem.assertions.revertWithCustomError(
        stack.hostile.write.execute([stack.hostileEscrow.address, escrowCall(stack, { functionName: "withdraw" })]),
        stack.hostileEscrow,
        "ReentrancyGuardReentrantCall",
      );
    });

    it("pays out once when the token swallows the failed reentry", async function () {
      const stack = await setup();
      const { hostile, hostileEscrow } = stack;
      await tokenAsBuyerWithUnlockedWithdrawal(stack, 1_000n);
      await mined(
        stack,
        hostile.write.arm([hostileEscrow.address, escrowCall(stack, { functionName: "withdraw" }), false]),
      );
      const receipt = await mined(
        stack,
        hostile.write.execute([hostileEscrow.address, escrowCall(stack, { functionName: "withdraw" })]),
      );
      expect(await hostile.read.reentries()).to.equal(1n);
      expect(await hostile.read.lastReentrySucceeded()).to.equal(false);
      expect(await hostile.read.lastReentryResult()).to.equal(reentrantCallError(stack));
      expect(
        parseEventLogs({ abi: hostileEscrow.abi, eventName: "Withdrawn", logs: receipt.logs }).map((log) => log.args),
      ).to.deep.equal([{ buyer: getAddress(hostile.address), amount: 1_000n, balance: 0n }]);
      expect(await hostile.read.balanceOf([hostile.address])).to.equal(1_000n);
      expect(await hostileEscrow.read.balanceOf([hostile.address])).to.equal(0n);
    });

    it("reverts ReentrancyGuardReentrantCall when it calls claim", async function () {
      const stack = await setup();
      await tokenAsPayoutWithEarnings(stack);
      await tokenAsBuyerWithUnlockedWithdrawal(stack, 1_000n);
      await mined(
        stack,
        stack.hostile.write.arm([
          stack.hostileEscrow.address,
          escrowCall(stack, { functionName: "claim", args: [stack.hostile.address] }),
          true,
        ]),
      );
      await viem.assertions.revertWithCustomError(
        stack.hostile.write.execute([stack.hostileEscrow.address, escrowCall(stack, { functionName: "withdraw" })]),
        stack.hostileEscrow,
        "ReentrancyGuardReentrantCall",
      );
    });
  });

  describe("when a hostile token reenters during recoverSurplus", function () {
    it("reverts ReentrancyGuardReentrantCall when it calls deposit", async function () {
      const stack = await setup();
      const { admin } = stack.accounts;
      await mined(stack, stack.hostile.write.mint([stack.hostileEscrow.address, 1_000n]));
      await mined(
        stack,
        stack.hostile.write.arm([
          stack.hostileEscrow.address,
          escrowCall(stack, { functionName: "deposit", args: [1n] }),
          true,
        ]),
      );
      await viem.assertions.revertWithCustomError(
        stack.hostileEscrow.write.recoverSurplus([admin.account.address, 1_000n], { account: admin.account }),
        stack.hostileEscrow,
        "ReentrancyGuardReentrantCall",
      );
    });
  });

  describe("when a hostile token reenters during claim", function () {
    it("reverts ReentrancyGuardReentrantCall when it calls claim again", async function () {
      const stack = await setup();
      await tokenAsPayoutWithEarnings(stack);
      const claim = escrowCall(stack, { functionName: "claim", args: [stack.hostile.address] });
      await mined(stack, stack.hostile.write.arm([stack.hostileEscrow.address, claim, true]));
      await viem.assertions.revertWithCustomError(
        stack.hostile.write.execute([stack.hostileEscrow.address, claim]),
        stack.hostileEscrow,
        "ReentrancyGuardReentrantCall",
      );
    });

    it("claims once when the token swallows the failed reentry", async function () {
      const stack = await setup();
      const { hostile, hostileEscrow } = stack;
      await tokenAsPayoutWithEarnings(stack);
      const claim = escrowCall(stack, { functionName: "claim", args: [hostile.address] });
      await mined(stack, hostile.write.arm([hostileEscrow.address, claim, false]));
      const receipt = await mined(stack, hostile.write.execute([hostileEscrow.address, claim]));
      expect(await hostile.read.lastReentryResult()).to.equal(reentrantCallError(stack));
      expect(
        parseEventLogs({ abi: hostileEscrow.abi, eventName: "EarningsClaimed", logs: receipt.logs }).map(
          (log) => log.args,
        ),
      ).to.deep.equal([{ account: getAddress(hostile.address), to: getAddress(hostile.address), amount: 9_500n }]);
      expect(await hostile.read.balanceOf([hostile.address])).to.equal(9_500n);
      expect(await hostileEscrow.read.earningsOf([hostile.address])).to.equal(0n);
    });

    it("reverts ReentrancyGuardReentrantCall when it calls withdraw", async function () {
      const stack = await setup();
      await tokenAsPayoutWithEarnings(stack);
      await tokenAsBuyerWithUnlockedWithdrawal(stack, 1_000n);
      const claim = escrowCall(stack, { functionName: "claim", args: [stack.hostile.address] });
      await mined(
        stack,
        stack.hostile.write.arm([stack.hostileEscrow.address, escrowCall(stack, { functionName: "withdraw" }), true]),
      );
      await viem.assertions.revertWithCustomError(
        stack.hostile.write.execute([stack.hostileEscrow.address, claim]),
        stack.hostileEscrow,
        "ReentrancyGuardReentrantCall",
      );
    });
  });

  describe("when a hostile token reenters during a deposit", function () {
    it("reverts ReentrancyGuardReentrantCall from deposit", async function () {
      const stack = await setup();
      const again = escrowCall(stack, { functionName: "depositFor", args: [stack.buyer.account.address, 1n] });
      await mined(stack, stack.hostile.write.arm([stack.hostileEscrow.address, again, true]));
      await viem.assertions.revertWithCustomError(
        stack.hostileEscrow.write.deposit([USDC], { account: stack.buyer.account }),
        stack.hostileEscrow,
        "ReentrancyGuardReentrantCall",
      );
    });

    it("reverts ReentrancyGuardReentrantCall from depositFor", async function () {
      const stack = await setup();
      const again = escrowCall(stack, { functionName: "deposit", args: [1n] });
      await mined(stack, stack.hostile.write.arm([stack.hostileEscrow.address, again, true]));
      await viem.assertions.revertWithCustomError(
        stack.hostileEscrow.write.depositFor([stack.buyer.account.address, USDC], { account: stack.buyer.account }),
        stack.hostileEscrow,
        "ReentrancyGuardReentrantCall",
      );
    });

    it("reverts ReentrancyGuardReentrantCall from depositWithAuthorization", async function () {
      const stack = await setup();
      const args = [getAddress(stack.buyer.account.address), USDC, 0n, 2n ** 64n, nonceOf("receive"), "0x"] as const;
      const again = escrowCall(stack, {
        functionName: "depositWithAuthorization",
        args: [...args.slice(0, 4), nonceOf("receive again"), "0x"],
      });
      await mined(stack, stack.hostile.write.arm([stack.hostileEscrow.address, again, true]));
      await viem.assertions.revertWithCustomError(
        stack.hostileEscrow.write.depositWithAuthorization(args, { account: stack.buyer.account }),
        stack.hostileEscrow,
        "ReentrancyGuardReentrantCall",
      );
    });

    it("credits once when the token swallows the failed reentry", async function () {
      const stack = await setup();
      const again = escrowCall(stack, { functionName: "depositFor", args: [stack.buyer.account.address, 1n] });
      await mined(stack, stack.hostile.write.arm([stack.hostileEscrow.address, again, false]));
      await viem.assertions.emitWithArgs(
        stack.hostileEscrow.write.deposit([USDC], { account: stack.buyer.account }),
        stack.hostileEscrow,
        "Deposited",
        [stack.buyer.account.address, stack.buyer.account.address, USDC, USDC],
      );
      expect(await stack.hostile.read.lastReentryResult()).to.equal(reentrantCallError(stack));
      expect(await stack.hostileEscrow.read.totalLiabilities()).to.equal(USDC);
      expect(await stack.hostile.read.balanceOf([stack.hostileEscrow.address])).to.equal(USDC);
    });
  });

  describe("when a hostile token that also holds RELAYER_ROLE reenters settleExact", function () {
    it("reverts ReentrancyGuardReentrantCall instead of settling the payment twice", async function () {
      const stack = await setup();
      const { hostile, hostileEscrow, accounts } = stack;
      await mined(
        stack,
        hostileEscrow.write.grantRole([await hostileEscrow.read.RELAYER_ROLE(), hostile.address], {
          account: accounts.admin.account,
        }),
      );
      const payment = {
        resourceId: stack.hostilePayoutResource,
        from: getAddress(stack.buyer.account.address),
        value: 1_000n,
        validAfter: 0n,
        validBefore: 2n ** 64n,
        nonce: nonceOf("exact"),
        signature: "0x",
      } as const;
      await mined(
        stack,
        hostile.write.arm([
          hostileEscrow.address,
          escrowCall(stack, { functionName: "settleExact", args: [payment] }),
          true,
        ]),
      );
      await viem.assertions.revertWithCustomError(
        hostileEscrow.write.settleExact([payment], stack.relayerAccount),
        hostileEscrow,
        "ReentrancyGuardReentrantCall",
      );
      await mined(
        stack,
        hostile.write.arm([
          hostileEscrow.address,
          escrowCall(stack, { functionName: "settleExact", args: [payment] }),
          false,
        ]),
      );
      const receipt = await mined(stack, hostileEscrow.write.settleExact([payment], stack.relayerAccount));
      expect(await hostile.read.lastReentryResult()).to.equal(reentrantCallError(stack));
      expect(debitLogs(hostileEscrow, receipt.logs)).to.have.length(1);
      expect(await hostileEscrow.read.earningsOf([hostile.address])).to.equal(950n);
    });
  });

  describe("when a hostile token is armed during a debit", function () {
    it("is never called: debits only credit, they never transfer", async function () {
      const stack = await setup();
      await mined(stack, stack.hostileEscrow.write.deposit([USDC], { account: stack.buyer.account }));
      await mined(
        stack,
        stack.hostile.write.arm([stack.hostileEscrow.address, escrowCall(stack, { functionName: "withdraw" }), true]),
      );
      const authorization = await buildDebitAuthorization(stack, {
        resourceId: stack.hostilePayoutResource,
        nonce: nonceOf("quiet"),
      });
      const signature = await signDebit(stack.hostileEscrow.address, stack.buyer, authorization);
      await viem.assertions.emit(
        stack.hostileEscrow.write.debit([{ authorization, amount: 1_000n, signature }], stack.relayerAccount),
        stack.hostileEscrow,
        "BatchDebited",
      );
      const second = { ...authorization, nonce: nonceOf("quiet 2") };
      const secondSignature = await signDebit(stack.hostileEscrow.address, stack.buyer, second);
      await viem.assertions.emit(
        stack.hostileEscrow.write.debitBatch(
          [[{ authorization: second, amount: 1_000n, signature: secondSignature }]],
          stack.relayerAccount,
        ),
        stack.hostileEscrow,
        "BatchDebited",
      );
      expect(await stack.hostile.read.reentries()).to.equal(0n);
      expect(await stack.hostile.read.armed()).to.equal(true);
    });
  });

  describe("when a hostile ERC-1271 wallet tries to change state inside isValidSignature", function () {
    async function walletSetup(mode: 0 | 1) {
      const stack = await setup();
      const { escrow, buyer } = stack;
      const wallet = await viem.deployContract("HostileERC1271Wallet", [buyer.account.address]);
      await mined(stack, stack.token.write.approve([escrow.address, USDC], { account: buyer.account }));
      await mined(
        stack,
        stack.token.write.mint([buyer.account.address, USDC], { account: stack.accounts.admin.account }),
      );
      await mined(stack, escrow.write.depositFor([wallet.address, USDC], { account: buyer.account }));
      const request = encodeFunctionData({ abi: escrow.abi, functionName: "requestWithdrawal", args: [1n] });
      await mined(stack, wallet.write.configure([mode, escrow.address, request]));
      const item = await signedDebit(stack, {
        resourceId: stack.resourceId,
        buyer: getAddress(wallet.address),
        amount: 1_000n,
      });
      return { ...stack, wallet, item, request };
    }

    it("fails the check with InvalidSignature(wallet) when the write is not swallowed, and spends nothing", async function () {
      const stack = await walletSetup(0);
      await viem.assertions.revertWithCustomErrorWithArgs(
        stack.escrow.write.debit([stack.item], stack.relayerAccount),
        stack.escrow,
        "InvalidSignature",
        [stack.wallet.address],
      );
      expect(await stack.wallet.read.writes()).to.equal(0n);
      expect(await stack.escrow.read.nonceUsed([stack.wallet.address, stack.item.authorization.nonce])).to.equal(false);
      expect(await stack.escrow.read.balanceOf([stack.wallet.address])).to.equal(USDC);
    });

    it("skips the item in a batch with DebitSkipped(..., InvalidSignature(wallet))", async function () {
      const stack = await walletSetup(0);
      await viem.assertions.emitWithArgs(
        stack.escrow.write.debitBatch([[stack.item]], stack.relayerAccount),
        stack.escrow,
        "DebitSkipped",
        [
          stack.resourceId,
          stack.wallet.address,
          stack.item.authorization.nonce,
          encodeErrorResult({ abi: stack.escrow.abi, errorName: "InvalidSignature", args: [stack.wallet.address] }),
        ],
      );
      expect(await stack.wallet.read.writes()).to.equal(0n);
    });

    it("debits once, and none of the writes it attempted and swallowed took effect", async function () {
      const stack = await walletSetup(1);
      await expectDebited(stack, stack.escrow.write.debit([stack.item], stack.relayerAccount), [
        stack.resourceId,
        stack.wallet.address,
        stack.item.authorization.nonce,
        1_000n,
        50n,
      ]);
      expect(await stack.wallet.read.writes()).to.equal(0n);
      expect(await stack.escrow.read.pendingWithdrawal([stack.wallet.address])).to.deep.equal([0n, 0n]);
      expect(await stack.escrow.read.balanceOf([stack.wallet.address])).to.equal(USDC - 1_000n);
    });

    it("could make the same call outside a signature check, so only the static context stopped it", async function () {
      const stack = await walletSetup(1);
      await viem.assertions.emitWithArgs(
        stack.wallet.write.execute([stack.escrow.address, stack.request]),
        stack.escrow,
        "WithdrawalRequested",
        [stack.wallet.address, 1n, (unlocksAt: bigint) => unlocksAt > 0n],
      );
      await mined(stack, stack.wallet.write.bump());
      expect(await stack.wallet.read.writes()).to.equal(1n);
    });
  });
});
