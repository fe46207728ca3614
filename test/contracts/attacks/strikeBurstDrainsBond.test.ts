import { expect } from "chai";
import { numberToHex, parseEventLogs } from "viem";
import { deployTypedStack, mined, mintTokens, networkHelpers, registerResource, USDC } from "../fixtures.ts";

/**
 * FACILITATOR_ROLE mints strike keys without limit (any buyer, any nonce). A compromised facilitator key could send a
 * burst of strikes against a resource: every `strikeThreshold` of them slashed again, halving the bond each time, so
 * thirty strikes left a thousandth of it before anyone could revoke the key. A resource is now slashed at most once
 * per SLASH_INTERVAL (1 day): strikes in between still count, and the next strike after the interval slashes.
 */
describe("attack: a burst of strikes from the facilitator drains a bond through repeated slashes", function () {
  async function setup() {
    const stack = await networkHelpers.loadFixture(deployTypedStack);
    const { creator } = stack.accounts;
    const { resourceId } = await registerResource(stack, { slug: "weather" });
    await mintTokens(stack, creator.account.address, 16n * USDC);
    await stack.token.write.approve([stack.registry.address, 16n * USDC], { account: creator.account });
    await stack.registry.write.postBond([resourceId, 16n * USDC], { account: creator.account });
    let sent = 0;
    const strike = async () => {
      sent += 1;
      const receipt = await mined(
        stack,
        stack.registry.write.recordStrike(
          [resourceId, stack.accounts.buyer.account.address, numberToHex(sent, { size: 32 }), "burst"],
          { account: stack.accounts.facilitator.account },
        ),
      );
      return parseEventLogs({ abi: stack.registry.abi, eventName: "BondSlashed", logs: receipt.logs }).length;
    };
    return { ...stack, resourceId, strike };
  }

  it("thirty strikes in a burst slash once: half the bond, never more", async function () {
    const { registry, resourceId, strike, accounts, token } = await setup();
    let slashes = 0;
    for (let i = 0; i < 30; i++) slashes += await strike();
    expect(slashes).to.equal(1);
    const resource = await registry.read.getResource([resourceId]);
    expect(resource.bond).to.equal(8n * USDC);
    expect(resource.strikes).to.equal(27);
    expect(await token.read.balanceOf([accounts.treasury.account.address])).to.equal(8n * USDC);
  });

  it("the next strike after SLASH_INTERVAL slashes again, and the count restarts", async function () {
    const { registry, resourceId, strike } = await setup();
    for (let i = 0; i < 5; i++) await strike();
    const interval = await registry.read.SLASH_INTERVAL();
    expect(interval).to.equal(86_400n);
    const { slashedAt } = await registry.read.getResource([resourceId]);
    await networkHelpers.time.setNextBlockTimestamp(BigInt(slashedAt) + interval - 1n);
    expect(await strike(), "a second before the interval ends").to.equal(0);
    expect(await strike(), "once it has").to.equal(1);
    const resource = await registry.read.getResource([resourceId]);
    expect(resource.bond).to.equal(4n * USDC);
    expect(resource.strikes).to.equal(0);
  });
});
