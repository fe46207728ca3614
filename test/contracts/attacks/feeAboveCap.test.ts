import { expect } from "chai";
import { DEFAULTS } from "../../../ignition/modules/parts.ts";
import type { Stack } from "../fixtures.ts";
import {
  buildDebitAuthorization,
  deployFundedEscrow,
  expectDebited,
  fundBuyer,
  mined,
  networkHelpers,
  nonceOf,
  registerResource,
  signDebit,
  viem,
} from "../fixtures.ts";

/**
 * The fee is always below 50% (FEE_BPS_LIMIT = 5000): the creator keeps the majority of every call. Neither the
 * deployer nor the admin can set it at or above the limit, nor jump to it.
 */
describe("fee at or above the cap", function () {
  const DAY = 86_400n;

  async function setup() {
    const stack = await networkHelpers.loadFixture(deployFundedEscrow);
    return { ...stack, adminAccount: { account: stack.accounts.admin.account } };
  }

  function deployEscrow(stack: Stack, feeBps: number) {
    const { treasury, admin } = stack.accounts;
    return viem.deployContract("PaymentEscrow", [
      stack.token.address,
      stack.registry.address,
      treasury.account.address,
      feeBps,
      admin.account.address,
      DEFAULTS.adminDelay,
    ]);
  }

  describe("at construction", function () {
    for (const feeBps of [5_000, 5_001, 10_000, 65_535]) {
      it(`reverts FeeTooHigh(${feeBps})`, async function () {
        const stack = await setup();
        await viem.assertions.revertWithCustomErrorWithArgs(deployEscrow(stack, feeBps), stack.escrow, "FeeTooHigh", [
          feeBps,
        ]);
      });
    }

    it("accepts 4999 bps, the highest fee allowed", async function () {
      const stack = await setup();
      const escrow = await deployEscrow(stack, 4_999);
      expect(await escrow.read.feeBps()).to.equal(4_999);
    });
  });

  describe("through setFee", function () {
    it("reverts FeeTooHigh(newFeeBps) for 5000 even when a step of one from 4999", async function () {
      const stack = await setup();
      const escrow = await deployEscrow(stack, 4_999);
      await networkHelpers.time.increase(Number(DAY));
      await viem.assertions.revertWithCustomErrorWithArgs(
        escrow.write.setFee([5_000], stack.adminAccount),
        escrow,
        "FeeTooHigh",
        [5_000],
      );
      await viem.assertions.revertWithCustomErrorWithArgs(
        escrow.write.setFee([65_535], stack.adminAccount),
        escrow,
        "FeeTooHigh",
        [65_535],
      );
      expect(await escrow.read.feeBps()).to.equal(4_999);
    });

    it("checks the cap before the step and the interval", async function () {
      const stack = await setup();
      await viem.assertions.revertWithCustomErrorWithArgs(
        stack.escrow.write.setFee([9_000], stack.adminAccount),
        stack.escrow,
        "FeeTooHigh",
        [9_000],
      );
    });

    it("reverts FeeStepTooLarge(old, new) for a jump towards the cap", async function () {
      const stack = await setup();
      await networkHelpers.time.increase(Number(DAY));
      await viem.assertions.revertWithCustomErrorWithArgs(
        stack.escrow.write.setFee([4_999], stack.adminAccount),
        stack.escrow,
        "FeeStepTooLarge",
        [500, 4_999],
      );
    });

    it("reverts FeeChangeTooSoon(nextChangeAt) for a second step within a day", async function () {
      const stack = await setup();
      await networkHelpers.time.increase(Number(DAY));
      await mined(stack, stack.escrow.write.setFee([600], stack.adminAccount));
      const last = await stack.escrow.read.lastFeeChangeAt();
      await viem.assertions.revertWithCustomErrorWithArgs(
        stack.escrow.write.setFee([700], stack.adminAccount),
        stack.escrow,
        "FeeChangeTooSoon",
        [last + DAY],
      );
    });
  });

  describe("at the highest fee allowed", function () {
    it("still leaves the creator more than the treasury", async function () {
      const stack = await setup();
      const escrow = await deployEscrow(stack, 4_999);
      const { admin, relayer, buyer, treasury } = stack.accounts;
      await mined(
        stack,
        escrow.write.grantRole([await escrow.read.RELAYER_ROLE(), relayer.account.address], { account: admin.account }),
      );
      const bound = { ...stack, escrow };
      await fundBuyer(bound, buyer, 10_000n);
      const { resourceId } = await registerResource(stack, { slug: "cheap" });
      const authorization = await buildDebitAuthorization(bound, {
        resourceId,
        nonce: nonceOf("max fee"),
        maxAmount: 10_000n,
      });
      const signature = await signDebit(escrow.address, buyer, authorization);
      await expectDebited(
        { ...stack, escrow },
        escrow.write.debit([{ authorization, amount: 10_000n, signature }], { account: relayer.account }),
        [resourceId, buyer.account.address, authorization.nonce, 10_000n, 4_999n],
      );
      expect(await escrow.read.earningsOf([treasury.account.address])).to.equal(4_999n);
    });
  });
});
