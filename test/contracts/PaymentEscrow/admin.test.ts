import { expect } from "chai";
import { getAddress, keccak256, toHex, zeroAddress, zeroHash } from "viem";
import { FEE_BPS_LIMIT, MAX_FEE_STEP_BPS } from "../../../services/protocol/constants.ts";
import { EXACT_NONCE_TAG } from "../../../services/protocol/exactNonce.ts";
import { DEBIT_AUTHORIZATION_TYPE } from "../../../services/protocol/typedData.ts";
import {
  atNextBlock,
  deployFundedEscrow,
  expectDebited,
  fundBuyer,
  mined,
  mintTokens,
  networkHelpers,
  signExactPayment,
  signedDebit,
  USDC,
  viem,
} from "../fixtures.ts";

/** PaymentEscrow administration: construction, fee, treasury, pause and roles. */
describe("PaymentEscrow administration", function () {
  const DAY = 86_400n;
  const RELAYER_ROLE = keccak256(toHex("RELAYER_ROLE"));
  const PAUSER_ROLE = keccak256(toHex("PAUSER_ROLE"));

  async function setup() {
    const stack = await networkHelpers.loadFixture(deployFundedEscrow);
    const { admin, relayer, treasury, other, buyer, payout } = stack.accounts;
    return {
      ...stack,
      admin,
      relayer,
      treasury,
      other,
      buyer,
      payout,
      adminAccount: { account: admin.account },
      relayerAccount: { account: relayer.account },
    };
  }
  type Setup = Awaited<ReturnType<typeof setup>>;

  async function afterFeeInterval(stack: Setup) {
    const last = await stack.escrow.read.lastFeeChangeAt();
    await networkHelpers.time.increaseTo(last + DAY);
  }

  describe("construction", function () {
    it("binds token and registry, sets treasury and fee, grants admin and pauser, and emits TreasuryChanged", async function () {
      const stack = await setup();
      const { contract, deploymentTransaction } = await viem.sendDeploymentTransaction("PaymentEscrow", [
        stack.token.address,
        stack.registry.address,
        stack.other.account.address,
        250,
        stack.admin.account.address,
        7_200,
      ]);
      await viem.assertions.emitWithArgs(Promise.resolve(deploymentTransaction.hash), contract, "TreasuryChanged", [
        stack.other.account.address,
      ]);
      expect(getAddress(await contract.read.token())).to.equal(getAddress(stack.token.address));
      expect(getAddress(await contract.read.registry())).to.equal(getAddress(stack.registry.address));
      expect(getAddress(await contract.read.treasury())).to.equal(getAddress(stack.other.account.address));
      expect(await contract.read.feeBps()).to.equal(250);
      expect(await contract.read.hasRole([zeroHash, stack.admin.account.address])).to.equal(true);
      expect(getAddress(await contract.read.defaultAdmin())).to.equal(getAddress(stack.admin.account.address));
      expect(await contract.read.defaultAdminDelay()).to.equal(7_200);
      expect(await contract.read.hasRole([PAUSER_ROLE, stack.admin.account.address])).to.equal(true);
      expect(await contract.read.hasRole([RELAYER_ROLE, stack.admin.account.address])).to.equal(false);
      expect(await contract.read.totalLiabilities()).to.equal(0n);
      expect(await contract.read.paused()).to.equal(false);
    });

    it("reverts ZeroAddress for a zero token, registry or treasury, AccessControlInvalidDefaultAdmin for a zero admin", async function () {
      const stack = await setup();
      const valid = [
        stack.token.address,
        stack.registry.address,
        stack.treasury.account.address,
        500,
        stack.admin.account.address,
        3_600,
      ] as const;
      for (const index of [0, 1, 2, 4]) {
        const args = [...valid] as [`0x${string}`, `0x${string}`, `0x${string}`, number, `0x${string}`, number];
        args[index] = zeroAddress;
        await viem.assertions.revertWithCustomError(
          viem.deployContract("PaymentEscrow", args),
          stack.escrow,
          index === 4 ? "AccessControlInvalidDefaultAdmin" : "ZeroAddress",
        );
      }
    });

    it("reverts FeeTooHigh(feeBps) for a fee of 5000 or more", async function () {
      const stack = await setup();
      await viem.assertions.revertWithCustomErrorWithArgs(
        viem.deployContract("PaymentEscrow", [
          stack.token.address,
          stack.registry.address,
          stack.treasury.account.address,
          5_000,
          stack.admin.account.address,
          3_600,
        ]),
        stack.escrow,
        "FeeTooHigh",
        [5_000],
      );
    });

    it("publishes its constants and type hashes", async function () {
      const { escrow } = await setup();
      expect(await escrow.read.DEBIT_AUTHORIZATION_TYPEHASH()).to.equal(keccak256(toHex(DEBIT_AUTHORIZATION_TYPE)));
      expect(await escrow.read.EXACT_NONCE_TAG()).to.equal(EXACT_NONCE_TAG);
      expect(await escrow.read.RELAYER_ROLE()).to.equal(RELAYER_ROLE);
      expect(await escrow.read.PAUSER_ROLE()).to.equal(PAUSER_ROLE);
      // The fee's bounds equal their off-chain mirrors (services/protocol/constants.ts), by which receipts are checked.
      expect({
        delay: await escrow.read.WITHDRAWAL_DELAY(),
        bps: await escrow.read.BPS(),
        limit: await escrow.read.FEE_BPS_LIMIT(),
        step: await escrow.read.MAX_FEE_STEP(),
        interval: await escrow.read.FEE_CHANGE_INTERVAL(),
      }).to.deep.equal({ delay: DAY, bps: 10_000, limit: FEE_BPS_LIMIT, step: MAX_FEE_STEP_BPS, interval: DAY });
    });
  });

  describe("setFee", function () {
    it("reverts FeeChangeTooSoon(nextChangeAt) within a day of the last change", async function () {
      const stack = await setup();
      const last = await stack.escrow.read.lastFeeChangeAt();
      await atNextBlock(last + DAY - 1n, () =>
        viem.assertions.revertWithCustomErrorWithArgs(
          stack.escrow.write.setFee([510], stack.adminAccount),
          stack.escrow,
          "FeeChangeTooSoon",
          [last + DAY],
        ),
      );
    });

    it("lets the fee change in the very second a day after the last change", async function () {
      const stack = await setup();
      const last = await stack.escrow.read.lastFeeChangeAt();
      await atNextBlock(last + DAY, () =>
        viem.assertions.emitWithArgs(
          stack.escrow.write.setFee([510], stack.adminAccount),
          stack.escrow,
          "FeeChanged",
          [500, 510],
        ),
      );
    });

    it("moves the fee by up to one step a day and emits FeeChanged(old, new)", async function () {
      const stack = await setup();
      await afterFeeInterval(stack);
      await viem.assertions.emitWithArgs(
        stack.escrow.write.setFee([600], stack.adminAccount),
        stack.escrow,
        "FeeChanged",
        [500, 600],
      );
      expect(await stack.escrow.read.feeBps()).to.equal(600);
      expect(await stack.escrow.read.lastFeeChangeAt()).to.equal(BigInt(await networkHelpers.time.latest()));
      await afterFeeInterval(stack);
      await viem.assertions.emitWithArgs(
        stack.escrow.write.setFee([500], stack.adminAccount),
        stack.escrow,
        "FeeChanged",
        [600, 500],
      );
    });

    it("reverts FeeStepTooLarge(old, new) for a step above 100 bps, up or down", async function () {
      const stack = await setup();
      await afterFeeInterval(stack);
      await viem.assertions.revertWithCustomErrorWithArgs(
        stack.escrow.write.setFee([601], stack.adminAccount),
        stack.escrow,
        "FeeStepTooLarge",
        [500, 601],
      );
      await viem.assertions.revertWithCustomErrorWithArgs(
        stack.escrow.write.setFee([399], stack.adminAccount),
        stack.escrow,
        "FeeStepTooLarge",
        [500, 399],
      );
    });

    it("applies the new fee to the next debit", async function () {
      const stack = await setup();
      await afterFeeInterval(stack);
      await mined(stack, stack.escrow.write.setFee([600], stack.adminAccount));
      const item = await signedDebit(stack, { resourceId: stack.resourceId, amount: 10_000n });
      await expectDebited(stack, stack.escrow.write.debit([item], stack.relayerAccount), [
        stack.resourceId,
        stack.buyer.account.address,
        item.authorization.nonce,
        10_000n,
        600n,
      ]);
    });

    it("reverts AccessControlUnauthorizedAccount(caller, DEFAULT_ADMIN_ROLE) for anyone but the admin", async function () {
      const stack = await setup();
      await afterFeeInterval(stack);
      for (const caller of [stack.other, stack.relayer, stack.treasury]) {
        await viem.assertions.revertWithCustomErrorWithArgs(
          stack.escrow.write.setFee([510], { account: caller.account }),
          stack.escrow,
          "AccessControlUnauthorizedAccount",
          [caller.account.address, zeroHash],
        );
      }
    });
  });

  describe("setTreasury", function () {
    it("credits future fees to the new treasury, leaves earned fees with the old one, and emits TreasuryChanged", async function () {
      const stack = await setup();
      const { escrow, other, treasury } = stack;
      await mined(
        stack,
        escrow.write.debit(
          [await signedDebit(stack, { resourceId: stack.resourceId, nonce: keccak256("0x01"), amount: 10_000n })],
          stack.relayerAccount,
        ),
      );
      await viem.assertions.emitWithArgs(
        escrow.write.setTreasury([other.account.address], stack.adminAccount),
        escrow,
        "TreasuryChanged",
        [other.account.address],
      );
      await mined(
        stack,
        escrow.write.debit(
          [await signedDebit(stack, { resourceId: stack.resourceId, nonce: keccak256("0x02"), amount: 20_000n })],
          stack.relayerAccount,
        ),
      );
      expect(await escrow.read.earningsOf([treasury.account.address])).to.equal(500n);
      expect(await escrow.read.earningsOf([other.account.address])).to.equal(1_000n);
      await mined(stack, escrow.write.claim([treasury.account.address], { account: treasury.account }));
      expect(await stack.token.read.balanceOf([treasury.account.address])).to.equal(500n);
    });

    it("reverts ZeroAddress for the zero address", async function () {
      const stack = await setup();
      await viem.assertions.revertWithCustomError(
        stack.escrow.write.setTreasury([zeroAddress], stack.adminAccount),
        stack.escrow,
        "ZeroAddress",
      );
    });

    it("reverts AccessControlUnauthorizedAccount(caller, DEFAULT_ADMIN_ROLE) for anyone but the admin", async function () {
      const stack = await setup();
      await viem.assertions.revertWithCustomErrorWithArgs(
        stack.escrow.write.setTreasury([stack.other.account.address], { account: stack.other.account }),
        stack.escrow,
        "AccessControlUnauthorizedAccount",
        [stack.other.account.address, zeroHash],
      );
    });
  });

  describe("pause and unpause", function () {
    async function paused() {
      const stack = await setup();
      await viem.assertions.emitWithArgs(stack.escrow.write.pause(stack.adminAccount), stack.escrow, "Paused", [
        stack.admin.account.address,
      ]);
      return stack;
    }

    it("stops debit, debitBatch and settleExact with EnforcedPause", async function () {
      const stack = await paused();
      const item = await signedDebit(stack, { resourceId: stack.resourceId, amount: 1n });
      await mintTokens(stack, stack.buyer.account.address, USDC);
      const payment = await signExactPayment(stack, stack.buyer, { resourceId: stack.resourceId, value: 1n });
      await viem.assertions.revertWithCustomError(
        stack.escrow.write.debit([item], stack.relayerAccount),
        stack.escrow,
        "EnforcedPause",
      );
      await viem.assertions.revertWithCustomError(
        stack.escrow.write.debitBatch([[item]], stack.relayerAccount),
        stack.escrow,
        "EnforcedPause",
      );
      await viem.assertions.revertWithCustomError(
        stack.escrow.write.settleExact([payment], stack.relayerAccount),
        stack.escrow,
        "EnforcedPause",
      );
    });

    it("never stops deposits, withdrawals, claims or spend limits", async function () {
      const stack = await setup();
      await mined(
        stack,
        stack.escrow.write.debit(
          [await signedDebit(stack, { resourceId: stack.resourceId, amount: 1_000n })],
          stack.relayerAccount,
        ),
      );
      await mined(stack, stack.escrow.write.requestWithdrawal([USDC], { account: stack.buyer.account }));
      await mined(stack, stack.escrow.write.pause(stack.adminAccount));
      await fundBuyer(stack, stack.other, USDC);
      await mined(stack, stack.escrow.write.setSpendLimit([1n, 1n], { account: stack.buyer.account }));
      await mined(stack, stack.escrow.write.claim([stack.payout.account.address], { account: stack.payout.account }));
      await networkHelpers.time.increase(Number(DAY));
      await viem.assertions.emitWithArgs(
        stack.escrow.write.applySpendLimit([stack.buyer.account.address], { account: stack.buyer.account }),
        stack.escrow,
        "SpendLimitSet",
        [stack.buyer.account.address, 1n, 1n],
      );
      await viem.assertions.emit(
        stack.escrow.write.withdraw({ account: stack.buyer.account }),
        stack.escrow,
        "Withdrawn",
      );
      expect(await stack.escrow.read.paused()).to.equal(true);
      expect(await stack.escrow.read.balanceOf([stack.other.account.address])).to.equal(USDC);
      expect(await stack.token.read.balanceOf([stack.payout.account.address])).to.equal(950n);
    });

    it("resumes debits after unpause, which emits Unpaused(account)", async function () {
      const stack = await paused();
      await viem.assertions.emitWithArgs(stack.escrow.write.unpause(stack.adminAccount), stack.escrow, "Unpaused", [
        stack.admin.account.address,
      ]);
      const item = await signedDebit(stack, { resourceId: stack.resourceId, amount: 1n });
      await viem.assertions.emit(stack.escrow.write.debit([item], stack.relayerAccount), stack.escrow, "BatchDebited");
    });

    it("reverts EnforcedPause when paused twice and ExpectedPause when unpaused twice", async function () {
      const stack = await paused();
      await viem.assertions.revertWithCustomError(
        stack.escrow.write.pause(stack.adminAccount),
        stack.escrow,
        "EnforcedPause",
      );
      await mined(stack, stack.escrow.write.unpause(stack.adminAccount));
      await viem.assertions.revertWithCustomError(
        stack.escrow.write.unpause(stack.adminAccount),
        stack.escrow,
        "ExpectedPause",
      );
    });

    it("reverts AccessControlUnauthorizedAccount(caller, PAUSER_ROLE) for anyone but a pauser", async function () {
      const stack = await setup();
      await viem.assertions.revertWithCustomErrorWithArgs(
        stack.escrow.write.pause({ account: stack.relayer.account }),
        stack.escrow,
        "AccessControlUnauthorizedAccount",
        [stack.relayer.account.address, PAUSER_ROLE],
      );
      await mined(stack, stack.escrow.write.pause(stack.adminAccount));
      await viem.assertions.revertWithCustomErrorWithArgs(
        stack.escrow.write.unpause({ account: stack.other.account }),
        stack.escrow,
        "AccessControlUnauthorizedAccount",
        [stack.other.account.address, PAUSER_ROLE],
      );
    });
  });

  describe("roles", function () {
    it("grants and revokes the relayer role, emitting RoleGranted and RoleRevoked", async function () {
      const stack = await setup();
      const { escrow, other, admin } = stack;
      expect(await escrow.read.getRoleAdmin([RELAYER_ROLE])).to.equal(zeroHash);
      await viem.assertions.emitWithArgs(
        escrow.write.grantRole([RELAYER_ROLE, other.account.address], stack.adminAccount),
        escrow,
        "RoleGranted",
        [RELAYER_ROLE, other.account.address, admin.account.address],
      );
      await viem.assertions.emit(
        escrow.write.debit([await signedDebit(stack, { resourceId: stack.resourceId, amount: 1n })], {
          account: other.account,
        }),
        escrow,
        "BatchDebited",
      );
      await viem.assertions.emitWithArgs(
        escrow.write.revokeRole([RELAYER_ROLE, other.account.address], stack.adminAccount),
        escrow,
        "RoleRevoked",
        [RELAYER_ROLE, other.account.address, admin.account.address],
      );
      expect(await escrow.read.hasRole([RELAYER_ROLE, other.account.address])).to.equal(false);
    });

    it("lets the relayer renounce its role, and only its own (AccessControlBadConfirmation)", async function () {
      const stack = await setup();
      const { escrow, relayer } = stack;
      await viem.assertions.revertWithCustomError(
        escrow.write.renounceRole([RELAYER_ROLE, relayer.account.address], { account: stack.other.account }),
        escrow,
        "AccessControlBadConfirmation",
      );
      await viem.assertions.emitWithArgs(
        escrow.write.renounceRole([RELAYER_ROLE, relayer.account.address], stack.relayerAccount),
        escrow,
        "RoleRevoked",
        [RELAYER_ROLE, relayer.account.address, relayer.account.address],
      );
    });

    it("reverts AccessControlUnauthorizedAccount(caller, DEFAULT_ADMIN_ROLE) when a non-admin grants a role", async function () {
      const stack = await setup();
      await viem.assertions.revertWithCustomErrorWithArgs(
        stack.escrow.write.grantRole([RELAYER_ROLE, stack.other.account.address], stack.relayerAccount),
        stack.escrow,
        "AccessControlUnauthorizedAccount",
        [stack.relayer.account.address, zeroHash],
      );
    });

    it("declares ERC-165 and IAccessControl support", async function () {
      const { escrow } = await setup();
      expect(await escrow.read.supportsInterface(["0x01ffc9a7"])).to.equal(true);
      expect(await escrow.read.supportsInterface(["0x7965db0b"])).to.equal(true);
      expect(await escrow.read.supportsInterface(["0xffffffff"])).to.equal(false);
    });
  });
});
