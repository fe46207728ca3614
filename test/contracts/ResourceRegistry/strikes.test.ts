import { expect } from "chai";
import type { Abi, Address, Hex } from "viem";
import { getAddress, keccak256, parseEventLogs, toHex, zeroAddress, zeroHash } from "viem";
import { bitmapNonce } from "../../../services/protocol/bitmapNonce.ts";
import { strikeKeyOf } from "../../../services/protocol/strikeKey.ts";
import type { Stack } from "../fixtures.ts";
import { deployTypedStack, networkHelpers, registerResource, resourceIdFor, USDC, viem } from "../fixtures.ts";

function idemKey(label: string): Hex {
  return keccak256(toHex(label));
}

describe("ResourceRegistry: strikes and slashing", function () {
  let stack: Stack;
  let resourceId: Hex;
  let strikeCount: number;
  let buyer: Address;

  beforeEach(async function () {
    stack = await networkHelpers.loadFixture(deployTypedStack);
    ({ resourceId } = await registerResource(stack, { slug: "weather" }));
    strikeCount = 0;
    buyer = getAddress(stack.accounts.buyer.account.address);
  });

  /** The StrikeRecorded arguments of the stack's buyer's call `label` against `id`. */
  function recorded(id: Hex, label: string, strikes: number, reason: string): [Hex, Hex, Address, Hex, number, string] {
    return [id, strikeKeyOf({ buyer, nonce: idemKey(label) }), buyer, idemKey(label), strikes, reason];
  }

  function asFacilitator() {
    return { account: stack.accounts.facilitator.account };
  }

  function asAdmin() {
    return { account: stack.accounts.admin.account };
  }

  async function bond(amount: bigint) {
    const { token, registry, accounts } = stack;
    await token.write.mint([accounts.creator.account.address, amount], asAdmin());
    await token.write.approve([registry.address, amount], { account: accounts.creator.account });
    await registry.write.postBond([resourceId, amount], { account: accounts.creator.account });
  }

  function strike(reason = "upstream_failed") {
    strikeCount += 1;
    return stack.registry.write.recordStrike(
      [resourceId, buyer, idemKey(`call-${strikeCount}`), reason],
      asFacilitator(),
    );
  }

  async function resource() {
    return stack.registry.read.getResource([resourceId]);
  }

  async function treasuryBalance() {
    return stack.token.read.balanceOf([stack.accounts.treasury.account.address]);
  }

  async function eventNames(hash: Hex, contract: { abi: Abi; address: Hex }): Promise<string[]> {
    const receipt = await stack.publicClient.waitForTransactionReceipt({ hash });
    const own = receipt.logs.filter((log) => log.address.toLowerCase() === contract.address.toLowerCase());
    return parseEventLogs({ abi: contract.abi, logs: own }).map((log) => log.eventName);
  }

  describe("recordStrike", function () {
    describe("when called by the facilitator below the threshold", function () {
      it("counts the strike, marks the idemKey and emits StrikeRecorded with the running count", async function () {
        const { registry } = stack;
        await viem.assertions.emitWithArgs(
          registry.write.recordStrike([resourceId, buyer, idemKey("a"), "timeout"], asFacilitator()),
          registry,
          "StrikeRecorded",
          recorded(resourceId, "a", 1, "timeout"),
        );
        await viem.assertions.emitWithArgs(
          registry.write.recordStrike([resourceId, buyer, idemKey("b"), "schema_mismatch"], asFacilitator()),
          registry,
          "StrikeRecorded",
          recorded(resourceId, "b", 2, "schema_mismatch"),
        );
        expect((await resource()).strikes).to.equal(2);
        expect((await resource()).active).to.equal(true);
        expect(await registry.read.strikeRecorded([strikeKeyOf({ buyer, nonce: idemKey("a") })])).to.equal(true);
        expect(await registry.read.strikeRecorded([strikeKeyOf({ buyer, nonce: idemKey("c") })])).to.equal(false);
      });

      it("does not slash or deactivate before the threshold", async function () {
        await bond(10n * USDC);
        const hash = await strike();
        expect(await eventNames(hash, stack.registry)).to.deep.equal(["StrikeRecorded"]);
        expect((await resource()).bond).to.equal(10n * USDC);
        expect(await treasuryBalance()).to.equal(0n);
      });
    });

    describe("when the caller lacks FACILITATOR_ROLE", function () {
      it("reverts with AccessControlUnauthorizedAccount carrying the caller and the role", async function () {
        for (const who of [stack.accounts.other, stack.accounts.admin, stack.accounts.creator]) {
          await viem.assertions.revertWithCustomErrorWithArgs(
            stack.registry.write.recordStrike([resourceId, buyer, idemKey("x"), "r"], { account: who.account }),
            stack.registry,
            "AccessControlUnauthorizedAccount",
            [who.account.address, await stack.registry.read.FACILITATOR_ROLE()],
          );
        }
      });

      it("follows grantRole and revokeRole by the admin", async function () {
        const { registry, accounts } = stack;
        const role = await registry.read.FACILITATOR_ROLE();
        await viem.assertions.emitWithArgs(
          registry.write.grantRole([role, accounts.other.account.address], asAdmin()),
          registry,
          "RoleGranted",
          [role, accounts.other.account.address, accounts.admin.account.address],
        );
        await registry.write.recordStrike([resourceId, buyer, idemKey("granted"), "r"], {
          account: accounts.other.account,
        });
        await viem.assertions.emitWithArgs(
          registry.write.revokeRole([role, accounts.other.account.address], asAdmin()),
          registry,
          "RoleRevoked",
          [role, accounts.other.account.address, accounts.admin.account.address],
        );
        await viem.assertions.revertWithCustomErrorWithArgs(
          registry.write.recordStrike([resourceId, buyer, idemKey("revoked"), "r"], {
            account: accounts.other.account,
          }),
          registry,
          "AccessControlUnauthorizedAccount",
          [accounts.other.account.address, role],
        );
      });

      it("stops a facilitator that renounced its role", async function () {
        const { registry, accounts } = stack;
        const role = await registry.read.FACILITATOR_ROLE();
        await viem.assertions.revertWithCustomErrorWithArgs(
          registry.write.renounceRole([role, accounts.other.account.address], asFacilitator()),
          registry,
          "AccessControlBadConfirmation",
          [],
        );
        await registry.write.renounceRole([role, accounts.facilitator.account.address], asFacilitator());
        await viem.assertions.revertWithCustomErrorWithArgs(
          registry.write.recordStrike([resourceId, buyer, idemKey("x"), "r"], asFacilitator()),
          registry,
          "AccessControlUnauthorizedAccount",
          [accounts.facilitator.account.address, role],
        );
      });
    });

    it("keys the strike by keccak256(abi.encode(buyer, nonce)), the same key services/protocol derives", async function () {
      const nonce = bitmapNonce(0);
      const key = strikeKeyOf({ buyer, nonce });
      expect(await stack.registry.read.strikeKeyOf([buyer, nonce])).to.equal(key);
      const other = getAddress(stack.accounts.other.account.address);
      expect(await stack.registry.read.strikeKeyOf([other, nonce])).to.equal(strikeKeyOf({ buyer: other, nonce }));
      await stack.registry.write.recordStrike([resourceId, buyer, nonce, "timeout"], asFacilitator());
      expect(await stack.registry.read.strikeRecorded([key])).to.equal(true);
      expect(await stack.registry.read.strikeRecorded([strikeKeyOf({ buyer: other, nonce })])).to.equal(false);
    });

    it("reverts with ZeroAddress for a strike that names no buyer", async function () {
      await viem.assertions.revertWithCustomErrorWithArgs(
        stack.registry.write.recordStrike([resourceId, zeroAddress, idemKey("a"), "timeout"], asFacilitator()),
        stack.registry,
        "ZeroAddress",
        [],
      );
    });

    describe("when the buyer's nonce was already struck", function () {
      it("reverts with StrikeAlreadyRecorded and does not count twice", async function () {
        await stack.registry.write.recordStrike([resourceId, buyer, idemKey("a"), "timeout"], asFacilitator());
        await viem.assertions.revertWithCustomErrorWithArgs(
          stack.registry.write.recordStrike([resourceId, buyer, idemKey("a"), "another reason"], asFacilitator()),
          stack.registry,
          "StrikeAlreadyRecorded",
          [buyer, idemKey("a")],
        );
        expect((await resource()).strikes).to.equal(1);
      });

      it("reverts with StrikeAlreadyRecorded even against another resource", async function () {
        const { resourceId: second } = await registerResource(stack, { slug: "maps" });
        await stack.registry.write.recordStrike([resourceId, buyer, idemKey("a"), "timeout"], asFacilitator());
        await viem.assertions.revertWithCustomErrorWithArgs(
          stack.registry.write.recordStrike([second, buyer, idemKey("a"), "timeout"], asFacilitator()),
          stack.registry,
          "StrikeAlreadyRecorded",
          [buyer, idemKey("a")],
        );
      });
    });

    it("reverts with UnknownResource for an unknown resource", async function () {
      const unknown = resourceIdFor(stack.accounts.creator.account.address, "nothing");
      await viem.assertions.revertWithCustomErrorWithArgs(
        stack.registry.write.recordStrike([unknown, buyer, idemKey("a"), "timeout"], asFacilitator()),
        stack.registry,
        "UnknownResource",
        [unknown],
      );
      expect(await stack.registry.read.strikeRecorded([strikeKeyOf({ buyer, nonce: idemKey("a") })])).to.equal(false);
    });
  });

  describe("when a strike reaches the threshold (3 strikes, 5000 bps)", function () {
    beforeEach(async function () {
      await bond(10n * USDC);
      await strike();
      await strike();
    });

    it("moves slashBps of the bond to the treasury, resets the count and deactivates", async function () {
      const { registry, token, accounts } = stack;
      const hash = await strike("timeout");
      await viem.assertions.emitWithArgs(
        hash,
        registry,
        "StrikeRecorded",
        recorded(resourceId, "call-3", 3, "timeout"),
      );
      await viem.assertions.emitWithArgs(hash, registry, "BondSlashed", [resourceId, 5n * USDC, 5n * USDC]);
      await viem.assertions.emitWithArgs(hash, registry, "ResourceDeactivated", [resourceId, registry.address]);
      await viem.assertions.emitWithArgs(hash, token, "Transfer", [
        registry.address,
        accounts.treasury.account.address,
        5n * USDC,
      ]);
      expect(await eventNames(hash, registry)).to.deep.equal(["StrikeRecorded", "BondSlashed", "ResourceDeactivated"]);

      const after = await resource();
      expect(after.bond).to.equal(5n * USDC);
      expect(after.strikes).to.equal(0);
      expect(after.active).to.equal(false);
      expect(after.deactivatedAt).to.equal(await networkHelpers.time.latest());
      expect(await treasuryBalance()).to.equal(5n * USDC);
      expect(await token.read.balanceOf([registry.address])).to.equal(5n * USDC);
      expect((await registry.read.paymentTarget([resourceId]))[1]).to.equal(false);
    });

    it("starts the bond withdrawal delay, after which the creator takes back the rest", async function () {
      const { registry, accounts } = stack;
      await strike();
      const unlocksAt = BigInt((await resource()).deactivatedAt) + (await registry.read.bondWithdrawalDelay());
      await viem.assertions.revertWithCustomErrorWithArgs(
        registry.write.withdrawBond([resourceId], { account: accounts.creator.account }),
        registry,
        "BondLocked",
        [resourceId, unlocksAt],
      );
      await networkHelpers.time.increaseTo(unlocksAt);
      await viem.assertions.emitWithArgs(
        registry.write.withdrawBond([resourceId], { account: accounts.creator.account }),
        registry,
        "BondWithdrawn",
        [resourceId, accounts.creator.account.address, 5n * USDC],
      );
    });

    it("leaves the creator able to reactivate only with a bond of at least minBond", async function () {
      const { registry, accounts } = stack;
      await registry.write.setStrikePolicy([3, 5_000, 6n * USDC], asAdmin());
      await strike();
      await viem.assertions.revertWithCustomErrorWithArgs(
        registry.write.reactivate([resourceId], { account: accounts.creator.account }),
        registry,
        "BondTooLow",
        [resourceId, 5n * USDC, 6n * USDC],
      );
    });

    it("counts again from zero after the slash", async function () {
      await strike();
      await stack.registry.write.reactivate([resourceId], { account: stack.accounts.creator.account });
      await viem.assertions.emitWithArgs(
        strike(),
        stack.registry,
        "StrikeRecorded",
        recorded(resourceId, "call-4", 1, "upstream_failed"),
      );
      expect((await resource()).bond).to.equal(5n * USDC);
    });

    it("rounds the slashed share down (3 base units at 5000 bps slash 1)", async function () {
      const { resourceId: small } = await registerResource(stack, { slug: "small" });
      const { token, registry, accounts } = stack;
      await token.write.mint([accounts.creator.account.address, 3n], asAdmin());
      await token.write.approve([registry.address, 3n], { account: accounts.creator.account });
      await registry.write.postBond([small, 3n], { account: accounts.creator.account });
      await registry.write.recordStrike([small, buyer, idemKey("s1"), "r"], asFacilitator());
      await registry.write.recordStrike([small, buyer, idemKey("s2"), "r"], asFacilitator());
      await viem.assertions.emitWithArgs(
        registry.write.recordStrike([small, buyer, idemKey("s3"), "r"], asFacilitator()),
        registry,
        "BondSlashed",
        [small, 1n, 2n],
      );
    });
  });

  describe("slashing edge cases", function () {
    describe("when the bond is zero", function () {
      it("emits BondSlashed(0, 0), transfers nothing and still deactivates", async function () {
        await strike();
        await strike();
        const hash = await strike();
        await viem.assertions.emitWithArgs(hash, stack.registry, "BondSlashed", [resourceId, 0n, 0n]);
        await viem.assertions.emitWithArgs(hash, stack.registry, "ResourceDeactivated", [
          resourceId,
          stack.registry.address,
        ]);
        expect(await eventNames(hash, stack.token)).to.deep.equal([]);
        expect((await resource()).active).to.equal(false);
        expect(await treasuryBalance()).to.equal(0n);
      });
    });

    describe("when slashBps is 0", function () {
      it("keeps the whole bond, transfers nothing, but resets and deactivates", async function () {
        await bond(10n * USDC);
        await stack.registry.write.setStrikePolicy([3, 0, 0n], asAdmin());
        await strike();
        await strike();
        const hash = await strike();
        await viem.assertions.emitWithArgs(hash, stack.registry, "BondSlashed", [resourceId, 0n, 10n * USDC]);
        expect(await eventNames(hash, stack.token)).to.deep.equal([]);
        const after = await resource();
        expect(after.bond).to.equal(10n * USDC);
        expect(after.strikes).to.equal(0);
        expect(after.active).to.equal(false);
      });
    });

    describe("when the resource is already inactive", function () {
      it("still counts strikes and slashes, without a second ResourceDeactivated or a new deactivatedAt", async function () {
        await bond(10n * USDC);
        await stack.registry.write.deactivate([resourceId], { account: stack.accounts.creator.account });
        const { deactivatedAt } = await resource();
        await networkHelpers.time.increase(3600);
        await strike();
        await strike();
        const hash = await strike();
        await viem.assertions.emitWithArgs(hash, stack.registry, "BondSlashed", [resourceId, 5n * USDC, 5n * USDC]);
        expect(await eventNames(hash, stack.registry)).to.deep.equal(["StrikeRecorded", "BondSlashed"]);
        const after = await resource();
        expect(after.deactivatedAt).to.equal(deactivatedAt);
        expect(after.active).to.equal(false);
        expect(after.strikes).to.equal(0);
        expect(await treasuryBalance()).to.equal(5n * USDC);
      });

      it("can still be slashed during the withdrawal delay, so strikes for past calls are not lost", async function () {
        await bond(10n * USDC);
        await stack.registry.write.deactivate([resourceId], { account: stack.accounts.creator.account });
        await networkHelpers.time.increase(6 * 24 * 60 * 60);
        await strike();
        await strike();
        await strike();
        await networkHelpers.time.increase(24 * 60 * 60);
        await viem.assertions.emitWithArgs(
          stack.registry.write.withdrawBond([resourceId], { account: stack.accounts.creator.account }),
          stack.registry,
          "BondWithdrawn",
          [resourceId, getAddress(stack.accounts.creator.account.address), 5n * USDC],
        );
      });
    });

    describe("when the threshold is reached again", function () {
      beforeEach(async function () {
        await bond(8n * USDC);
        await strike();
        await strike();
        await viem.assertions.emitWithArgs(strike(), stack.registry, "BondSlashed", [resourceId, 4n * USDC, 4n * USDC]);
      });

      it("only counts strikes within SLASH_INTERVAL of the last slash, and records when that was", async function () {
        const { slashedAt } = await resource();
        expect(slashedAt).to.equal(await networkHelpers.time.latest());
        for (let i = 0; i < 4; i++) {
          expect(await eventNames(await strike(), stack.registry)).to.deep.equal(["StrikeRecorded"]);
        }
        const after = await resource();
        expect(after.strikes).to.equal(4);
        expect(after.bond).to.equal(4n * USDC);
        expect(after.slashedAt).to.equal(slashedAt);
      });

      it("slashes again at the first strike from SLASH_INTERVAL on, compounding on what is left", async function () {
        const { slashedAt } = await resource();
        await strike();
        await strike();
        await strike();
        const interval = await stack.registry.read.SLASH_INTERVAL();
        await networkHelpers.time.setNextBlockTimestamp(BigInt(slashedAt) + interval);
        const hash = await strike();
        await viem.assertions.emitWithArgs(
          hash,
          stack.registry,
          "StrikeRecorded",
          recorded(resourceId, "call-7", 4, "upstream_failed"),
        );
        await viem.assertions.emitWithArgs(hash, stack.registry, "BondSlashed", [resourceId, 2n * USDC, 2n * USDC]);
        expect(await treasuryBalance()).to.equal(6n * USDC);
        const after = await resource();
        expect(after.strikes).to.equal(0);
        expect(after.slashedAt).to.equal(Number(BigInt(slashedAt) + interval));
      });
    });

    describe("when the policy changes between strikes", function () {
      it("slashes on the next strike once the threshold drops below the count", async function () {
        await bond(10n * USDC);
        await stack.registry.write.setStrikePolicy([6, 5_000, 0n], asAdmin());
        for (let i = 0; i < 4; i++) await strike();
        await stack.registry.write.setStrikePolicy([3, 2_000, 0n], asAdmin());
        const hash = await strike();
        await viem.assertions.emitWithArgs(
          hash,
          stack.registry,
          "StrikeRecorded",
          recorded(resourceId, "call-5", 5, "upstream_failed"),
        );
        await viem.assertions.emitWithArgs(hash, stack.registry, "BondSlashed", [resourceId, 2n * USDC, 8n * USDC]);
      });

      it("does not slash at the old threshold once it was raised", async function () {
        await bond(10n * USDC);
        await strike();
        await strike();
        await stack.registry.write.setStrikePolicy([5, 5_000, 0n], asAdmin());
        const third = await strike();
        expect(await eventNames(third, stack.registry)).to.deep.equal(["StrikeRecorded"]);
        await strike();
        await viem.assertions.emitWithArgs(strike(), stack.registry, "BondSlashed", [resourceId, 5n * USDC, 5n * USDC]);
      });

      it("applies the slashBps in force at the slashing strike", async function () {
        await bond(10n * USDC);
        await strike();
        await strike();
        await stack.registry.write.setStrikePolicy([3, 1_000, 0n], asAdmin());
        await viem.assertions.emitWithArgs(strike(), stack.registry, "BondSlashed", [resourceId, USDC, 9n * USDC]);
      });
    });

    describe("when the treasury changes before the slash", function () {
      it("sends the slashed share to the new treasury", async function () {
        await bond(10n * USDC);
        await stack.registry.write.setTreasury([stack.accounts.other.account.address], asAdmin());
        await strike();
        await strike();
        await viem.assertions.emitWithArgs(strike(), stack.token, "Transfer", [
          stack.registry.address,
          stack.accounts.other.account.address,
          5n * USDC,
        ]);
        expect(await treasuryBalance()).to.equal(0n);
      });
    });
  });

  describe("setStrikePolicy", function () {
    it("stores the policy and emits StrikePolicyChanged", async function () {
      await viem.assertions.emitWithArgs(
        stack.registry.write.setStrikePolicy([7, 2_500, 3n * USDC], asAdmin()),
        stack.registry,
        "StrikePolicyChanged",
        [7, 2_500, 3n * USDC],
      );
      expect(await stack.registry.read.strikeThreshold()).to.equal(7);
      expect(await stack.registry.read.slashBps()).to.equal(2_500);
      expect(await stack.registry.read.minBond()).to.equal(3n * USDC);
    });

    describe("when the policy is invalid", function () {
      it("reverts with InvalidStrikePolicy for a threshold below MIN_STRIKE_THRESHOLD (3), zero included", async function () {
        for (const threshold of [0, 2]) {
          await viem.assertions.revertWithCustomErrorWithArgs(
            stack.registry.write.setStrikePolicy([threshold, 5_000, 0n], asAdmin()),
            stack.registry,
            "InvalidStrikePolicy",
            [threshold, 5_000],
          );
        }
        expect(await stack.registry.read.strikeThreshold()).to.equal(3);
      });

      it("reverts with InvalidStrikePolicy for a share above MAX_SLASH_BPS (5000)", async function () {
        await viem.assertions.revertWithCustomErrorWithArgs(
          stack.registry.write.setStrikePolicy([3, 5_001, 0n], asAdmin()),
          stack.registry,
          "InvalidStrikePolicy",
          [3, 5_001],
        );
        expect(await stack.registry.read.slashBps()).to.equal(5_000);
      });
    });

    it("reverts with AccessControlUnauthorizedAccount for a non-admin, the facilitator included", async function () {
      for (const who of [stack.accounts.other, stack.accounts.facilitator]) {
        await viem.assertions.revertWithCustomErrorWithArgs(
          stack.registry.write.setStrikePolicy([3, 5_000, 0n], { account: who.account }),
          stack.registry,
          "AccessControlUnauthorizedAccount",
          [who.account.address, zeroHash],
        );
      }
    });
  });

  describe("setTreasury", function () {
    it("stores the treasury and emits TreasuryChanged", async function () {
      const next = stack.accounts.other.account.address;
      await viem.assertions.emitWithArgs(
        stack.registry.write.setTreasury([next], asAdmin()),
        stack.registry,
        "TreasuryChanged",
        [next],
      );
      expect((await stack.registry.read.treasury()).toLowerCase()).to.equal(next.toLowerCase());
    });

    it("reverts with ZeroAddress for the zero address", async function () {
      await viem.assertions.revertWithCustomErrorWithArgs(
        stack.registry.write.setTreasury(["0x0000000000000000000000000000000000000000"], asAdmin()),
        stack.registry,
        "ZeroAddress",
        [],
      );
    });

    it("reverts with AccessControlUnauthorizedAccount for a non-admin", async function () {
      await viem.assertions.revertWithCustomErrorWithArgs(
        stack.registry.write.setTreasury([stack.accounts.other.account.address], {
          account: stack.accounts.other.account,
        }),
        stack.registry,
        "AccessControlUnauthorizedAccount",
        [stack.accounts.other.account.address, zeroHash],
      );
    });
  });
});
