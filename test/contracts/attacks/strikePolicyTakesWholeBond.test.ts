import { expect } from "chai";
import { deployTypedStack, mintTokens, networkHelpers, registerResource, USDC, viem } from "../fixtures.ts";

/**
 * The registry admin could set any strike policy at once: `setStrikePolicy(1, 10000, …)` made the facilitator's next
 * strike take a creator's whole bond. A policy now needs at least MIN_STRIKE_THRESHOLD (3) strikes for a slash, and a
 * slash takes at most MAX_SLASH_BPS (5000, half) of the bond.
 */
describe("attack: the admin sets a strike policy under which one strike takes the whole bond", function () {
  async function setup() {
    const stack = await networkHelpers.loadFixture(deployTypedStack);
    const { creator } = stack.accounts;
    const { resourceId } = await registerResource(stack, { slug: "weather" });
    await mintTokens(stack, creator.account.address, 10n * USDC);
    await stack.token.write.approve([stack.registry.address, 10n * USDC], { account: creator.account });
    await stack.registry.write.postBond([resourceId, 10n * USDC], { account: creator.account });
    return { ...stack, resourceId, asAdmin: { account: stack.accounts.admin.account } };
  }

  for (const [threshold, slashBps] of [
    [1, 10_000],
    [1, 5_000],
    [2, 5_000],
    [3, 5_001],
    [3, 10_000],
  ] as const) {
    it(`refuses setStrikePolicy(${threshold}, ${slashBps}): InvalidStrikePolicy`, async function () {
      const { registry, asAdmin } = await setup();
      await viem.assertions.revertWithCustomErrorWithArgs(
        registry.write.setStrikePolicy([threshold, slashBps, 0n], asAdmin),
        registry,
        "InvalidStrikePolicy",
        [threshold, slashBps],
      );
      expect([await registry.read.strikeThreshold(), await registry.read.slashBps()]).to.deep.equal([3, 5_000]);
    });
  }

  it("so a strike under the harshest policy allowed takes nothing, and the third takes half", async function () {
    const { registry, accounts, resourceId, asAdmin } = await setup();
    expect(await registry.read.MIN_STRIKE_THRESHOLD()).to.equal(3);
    expect(await registry.read.MAX_SLASH_BPS()).to.equal(5_000);
    await registry.write.setStrikePolicy([3, 5_000, 0n], asAdmin);
    const asFacilitator = { account: accounts.facilitator.account };
    const buyer = accounts.buyer.account.address;
    for (const nonce of ["0x01", "0x02"] as const) {
      await registry.write.recordStrike([resourceId, buyer, `${nonce}${"00".repeat(31)}`, "r"], asFacilitator);
      expect((await registry.read.getResource([resourceId])).bond).to.equal(10n * USDC);
    }
    await registry.write.recordStrike([resourceId, buyer, `0x03${"00".repeat(31)}`, "r"], asFacilitator);
    expect((await registry.read.getResource([resourceId])).bond).to.equal(5n * USDC);
  });
});
