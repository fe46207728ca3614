import { expect } from "chai";
import type { Hex } from "viem";
import { keccak256, toHex, zeroAddress } from "viem";
import type { Stack } from "../fixtures.ts";
import { deployTypedStack, networkHelpers, registerResource, resourceIdFor, USDC, viem } from "../fixtures.ts";

describe("ResourceRegistry: creator updates", function () {
  let stack: Stack;
  let resourceId: Hex;

  beforeEach(async function () {
    stack = await networkHelpers.loadFixture(deployTypedStack);
    ({ resourceId } = await registerResource(stack, { slug: "weather" }));
  });

  function asCreator() {
    return { account: stack.accounts.creator.account };
  }

  function asOther() {
    return { account: stack.accounts.other.account };
  }

  describe("updatePricing", function () {
    const pricing = { base: 2n * USDC, perKB: 3n, max: 5n * USDC };

    it("stores the new terms and emits PricingUpdated", async function () {
      await viem.assertions.emitWithArgs(
        stack.registry.write.updatePricing([resourceId, pricing], asCreator()),
        stack.registry,
        "PricingUpdated",
        [resourceId, pricing],
      );
      expect((await stack.registry.read.getResource([resourceId])).pricing).to.deep.equal(pricing);
    });

    it("is allowed while the resource is inactive", async function () {
      await stack.registry.write.deactivate([resourceId], asCreator());
      await stack.registry.write.updatePricing([resourceId, pricing], asCreator());
      expect((await stack.registry.read.getResource([resourceId])).pricing).to.deep.equal(pricing);
    });

    describe("when the caller is not the creator", function () {
      it("reverts with NotCreator carrying the caller and the creator", async function () {
        await viem.assertions.revertWithCustomErrorWithArgs(
          stack.registry.write.updatePricing([resourceId, pricing], asOther()),
          stack.registry,
          "NotCreator",
          [stack.accounts.other.account.address, stack.accounts.creator.account.address],
        );
      });

      it("reverts with NotCreator for the payout account too", async function () {
        await viem.assertions.revertWithCustomErrorWithArgs(
          stack.registry.write.updatePricing([resourceId, pricing], { account: stack.accounts.payout.account }),
          stack.registry,
          "NotCreator",
          [stack.accounts.payout.account.address, stack.accounts.creator.account.address],
        );
      });
    });

    describe("when the terms are invalid", function () {
      it("reverts with InvalidPricing for a cap below the base", async function () {
        await viem.assertions.revertWithCustomErrorWithArgs(
          stack.registry.write.updatePricing([resourceId, { base: 10n, perKB: 0n, max: 9n }], asCreator()),
          stack.registry,
          "InvalidPricing",
          [10n, 9n],
        );
      });

      it("reverts with InvalidPricing for a zero cap", async function () {
        await viem.assertions.revertWithCustomErrorWithArgs(
          stack.registry.write.updatePricing([resourceId, { base: 0n, perKB: 0n, max: 0n }], asCreator()),
          stack.registry,
          "InvalidPricing",
          [0n, 0n],
        );
      });
    });

    it("reverts with UnknownResource for an unknown resource", async function () {
      const unknown = resourceIdFor(stack.accounts.creator.account.address, "nothing");
      await viem.assertions.revertWithCustomErrorWithArgs(
        stack.registry.write.updatePricing([unknown, pricing], asCreator()),
        stack.registry,
        "UnknownResource",
        [unknown],
      );
    });
  });

  describe("updateCard", function () {
    const cardURI = "https://weather.example/v2/agent-card.json";
    const cardHash = keccak256(toHex("card v2"));

    it("stores the new card and emits CardUpdated", async function () {
      await viem.assertions.emitWithArgs(
        stack.registry.write.updateCard([resourceId, cardURI, cardHash], asCreator()),
        stack.registry,
        "CardUpdated",
        [resourceId, cardURI, cardHash],
      );
      const resource = await stack.registry.read.getResource([resourceId]);
      expect(resource.cardURI).to.equal(cardURI);
      expect(resource.cardHash).to.equal(cardHash);
    });

    it("reverts with NotCreator when someone else updates the card", async function () {
      await viem.assertions.revertWithCustomErrorWithArgs(
        stack.registry.write.updateCard([resourceId, cardURI, cardHash], asOther()),
        stack.registry,
        "NotCreator",
        [stack.accounts.other.account.address, stack.accounts.creator.account.address],
      );
    });

    it("reverts with UnknownResource for an unknown resource", async function () {
      const unknown = resourceIdFor(stack.accounts.other.account.address, "weather");
      await viem.assertions.revertWithCustomErrorWithArgs(
        stack.registry.write.updateCard([unknown, cardURI, cardHash], asOther()),
        stack.registry,
        "UnknownResource",
        [unknown],
      );
    });
  });

  describe("setPayout", function () {
    it("moves the payout, emits PayoutUpdated and paymentTarget follows", async function () {
      const next = stack.accounts.other.account.address;
      await viem.assertions.emitWithArgs(
        stack.registry.write.setPayout([resourceId, next], asCreator()),
        stack.registry,
        "PayoutUpdated",
        [resourceId, next],
      );
      const [payout, active] = await stack.registry.read.paymentTarget([resourceId]);
      expect(payout.toLowerCase()).to.equal(next.toLowerCase());
      expect(active).to.equal(true);
    });

    it("reverts with ZeroAddress for the zero address", async function () {
      await viem.assertions.revertWithCustomErrorWithArgs(
        stack.registry.write.setPayout([resourceId, zeroAddress], asCreator()),
        stack.registry,
        "ZeroAddress",
        [],
      );
    });

    it("reverts with NotCreator when the current payout tries to redirect itself", async function () {
      await viem.assertions.revertWithCustomErrorWithArgs(
        stack.registry.write.setPayout([resourceId, stack.accounts.other.account.address], {
          account: stack.accounts.payout.account,
        }),
        stack.registry,
        "NotCreator",
        [stack.accounts.payout.account.address, stack.accounts.creator.account.address],
      );
    });
  });

  describe("deactivate", function () {
    it("stops debits, records the time and emits ResourceDeactivated by the creator", async function () {
      await viem.assertions.emitWithArgs(
        stack.registry.write.deactivate([resourceId], asCreator()),
        stack.registry,
        "ResourceDeactivated",
        [resourceId, stack.accounts.creator.account.address],
      );
      const resource = await stack.registry.read.getResource([resourceId]);
      expect(resource.active).to.equal(false);
      expect(resource.deactivatedAt).to.equal(await networkHelpers.time.latest());
      const [payout, active] = await stack.registry.read.paymentTarget([resourceId]);
      expect(payout.toLowerCase()).to.equal(stack.accounts.payout.account.address.toLowerCase());
      expect(active).to.equal(false);
    });

    it("reverts with ResourceInactive when already inactive", async function () {
      await stack.registry.write.deactivate([resourceId], asCreator());
      await viem.assertions.revertWithCustomErrorWithArgs(
        stack.registry.write.deactivate([resourceId], asCreator()),
        stack.registry,
        "ResourceInactive",
        [resourceId],
      );
    });

    it("reverts with NotCreator for anyone else, the admin included", async function () {
      await viem.assertions.revertWithCustomErrorWithArgs(
        stack.registry.write.deactivate([resourceId], { account: stack.accounts.admin.account }),
        stack.registry,
        "NotCreator",
        [stack.accounts.admin.account.address, stack.accounts.creator.account.address],
      );
    });
  });

  describe("reactivate", function () {
    describe("when the resource is inactive and the bond meets minBond", function () {
      it("allows debits again, clears deactivatedAt and emits ResourceReactivated", async function () {
        await stack.registry.write.deactivate([resourceId], asCreator());
        await viem.assertions.emitWithArgs(
          stack.registry.write.reactivate([resourceId], asCreator()),
          stack.registry,
          "ResourceReactivated",
          [resourceId],
        );
        const resource = await stack.registry.read.getResource([resourceId]);
        expect(resource.active).to.equal(true);
        expect(resource.deactivatedAt).to.equal(0);
        expect((await stack.registry.read.paymentTarget([resourceId]))[1]).to.equal(true);
      });

      it("accepts a bond exactly equal to minBond", async function () {
        const { registry, token, accounts } = stack;
        await registry.write.setStrikePolicy([3, 5_000, USDC], { account: accounts.admin.account });
        await token.write.mint([accounts.creator.account.address, USDC], { account: accounts.admin.account });
        await token.write.approve([registry.address, USDC], asCreator());
        await registry.write.postBond([resourceId, USDC], asCreator());
        await registry.write.deactivate([resourceId], asCreator());
        await registry.write.reactivate([resourceId], asCreator());
        expect((await registry.read.getResource([resourceId])).active).to.equal(true);
      });
    });

    describe("when the bond is below minBond", function () {
      it("reverts with BondTooLow carrying the bond and minBond", async function () {
        const { registry, token, accounts } = stack;
        await registry.write.setStrikePolicy([3, 5_000, USDC], { account: accounts.admin.account });
        await token.write.mint([accounts.creator.account.address, USDC], { account: accounts.admin.account });
        await token.write.approve([registry.address, USDC], asCreator());
        await registry.write.postBond([resourceId, USDC - 1n], asCreator());
        await registry.write.deactivate([resourceId], asCreator());
        await viem.assertions.revertWithCustomErrorWithArgs(
          registry.write.reactivate([resourceId], asCreator()),
          registry,
          "BondTooLow",
          [resourceId, USDC - 1n, USDC],
        );
        await registry.write.postBond([resourceId, 1n], asCreator());
        await registry.write.reactivate([resourceId], asCreator());
        expect((await registry.read.getResource([resourceId])).active).to.equal(true);
      });
    });

    it("reverts with ResourceActive when already active", async function () {
      await viem.assertions.revertWithCustomErrorWithArgs(
        stack.registry.write.reactivate([resourceId], asCreator()),
        stack.registry,
        "ResourceActive",
        [resourceId],
      );
    });

    it("reverts with NotCreator for anyone else", async function () {
      await stack.registry.write.deactivate([resourceId], asCreator());
      await viem.assertions.revertWithCustomErrorWithArgs(
        stack.registry.write.reactivate([resourceId], asOther()),
        stack.registry,
        "NotCreator",
        [stack.accounts.other.account.address, stack.accounts.creator.account.address],
      );
    });
  });
});
