import { expect } from "chai";
import type { Hex } from "viem";
import { getAddress, parseEventLogs } from "viem";
import { bitmapNonce } from "../../../services/protocol/bitmapNonce.ts";
import { strikeKeyOf } from "../../../services/protocol/strikeKey.ts";
import {
  deployTypedStack,
  mined,
  mintTokens,
  networkHelpers,
  registerResource,
  signedDebit,
  USDC,
  viem,
} from "../fixtures.ts";

/**
 * A payment nonce is unique only per buyer: every buyer's bitmap nonces start at index 0. Strikes were recorded once
 * per nonce, so after the first failed call at index k was struck, every later failed call at index k, by any buyer to
 * any resource, was refused (`StrikeAlreadyRecorded`) and a resource that failed every buyer's first call was struck
 * once and never slashed. A strike is now keyed by (buyer, nonce), as the escrow spends nonces.
 */
describe("attack: strikes collide across buyers that use the same nonce", function () {
  async function setup() {
    const stack = await networkHelpers.loadFixture(deployTypedStack);
    const { creator } = stack.accounts;
    const { resourceId } = await registerResource(stack, { slug: "broken" });
    await mintTokens(stack, creator.account.address, 10n * USDC);
    await stack.token.write.approve([stack.registry.address, 10n * USDC], { account: creator.account });
    await stack.registry.write.postBond([resourceId, 10n * USDC], { account: creator.account });
    return { ...stack, resourceId };
  }

  it("three buyers' first calls (bitmap nonce 0) that fail are three strikes, and the third slashes the bond", async function () {
    const stack = await setup();
    const { registry, accounts, resourceId } = stack;
    const buyers = [accounts.buyer, accounts.other, accounts.payout];
    const nonce = bitmapNonce(0);
    for (const [i, buyer] of buyers.entries()) {
      // Each buyer signs its first call with the same nonce; each is valid for the escrow, whose nonces are per buyer.
      const debit = await signedDebit(stack, { resourceId, buyer: buyer.account.address, nonce, signer: buyer });
      expect(debit.authorization.nonce).to.equal(nonce);
      expect(await stack.escrow.read.nonceUsed([buyer.account.address, nonce])).to.equal(false);

      const hash = await registry.write.recordStrike([resourceId, buyer.account.address, nonce, "handler_error"], {
        account: accounts.facilitator.account,
      });
      const receipt = await mined(stack, hash);
      const [struck] = parseEventLogs({ abi: registry.abi, eventName: "StrikeRecorded", logs: receipt.logs });
      const address = getAddress(buyer.account.address);
      expect(struck?.args).to.deep.equal({
        resourceId,
        strikeKey: strikeKeyOf({ buyer: address, nonce }),
        buyer: address,
        nonce,
        strikes: i + 1,
        reason: "handler_error",
      });
    }
    const slashed = await registry.read.getResource([resourceId]);
    expect(slashed.bond).to.equal(5n * USDC);
    expect(slashed.active).to.equal(false);
    expect(await stack.token.read.balanceOf([accounts.treasury.account.address])).to.equal(5n * USDC);
  });

  it("the same buyer's call is still struck only once", async function () {
    const stack = await setup();
    const { registry, accounts, resourceId } = stack;
    const buyer = accounts.buyer.account.address;
    const nonce: Hex = bitmapNonce(0);
    const asFacilitator = { account: accounts.facilitator.account };
    await registry.write.recordStrike([resourceId, buyer, nonce, "handler_error"], asFacilitator);
    await viem.assertions.revertWithCustomErrorWithArgs(
      registry.write.recordStrike([resourceId, buyer, nonce, "handler_error"], asFacilitator),
      registry,
      "StrikeAlreadyRecorded",
      [getAddress(buyer), nonce],
    );
    expect((await registry.read.getResource([resourceId])).strikes).to.equal(1);
  });
});
