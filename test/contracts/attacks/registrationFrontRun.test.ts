import { expect } from "chai";
import { keccak256, toHex } from "viem";
import { bondNonce } from "../../../services/protocol/bondNonce.ts";
import {
  buildRegistration,
  deployTypedStack,
  mintAgent,
  mintTokens,
  networkHelpers,
  resourceIdFor,
  signBondAuthorization,
  signRegisterResource,
  USDC,
  viem,
} from "../fixtures.ts";

/**
 * Registration attacks on the ResourceRegistry:
 * - the creator's `registerFor` consent cannot cover `agentId`, `cardURI` and `cardHash` (they do not exist when the
 *   creator signs), so anyone watching the mempool could copy a pending `registerFor`, signature and bond included, and
 *   submit it first with a card of his own: the slug is taken with the attacker's card, the creator's bond is posted
 *   under it, and the marketplace's own transaction fails;
 * - `register` skipped `minBond`: a creator got an active resource with no bond at stake whatever the policy;
 * - with `minBond = 0` a creator could withdraw the whole bond he was listed with and reactivate the resource, serving
 *   again with nothing to slash.
 */
describe("registration attacks on the ResourceRegistry", function () {
  async function setup() {
    const stack = await networkHelpers.loadFixture(deployTypedStack);
    const { creator } = stack.accounts;
    await mintTokens(stack, creator.account.address, 100n * USDC);
    const agentId = await mintAgent(stack, creator);
    return { ...stack, agentId, creatorAddress: creator.account.address };
  }

  it("a mempool observer cannot copy a creator's registerFor (consent and bond) and register the slug first with his own card", async function () {
    const stack = await setup();
    const { creator, buyer: observer } = stack.accounts;
    const registration = buildRegistration(stack, { agentId: stack.agentId, slug: "weather" });
    const deadline = BigInt((await networkHelpers.time.latest()) + 3600);
    const signature = await signRegisterResource(stack, creator, stack.creatorAddress, registration, deadline);
    const bond = await signBondAuthorization(stack, creator, {
      value: 5n * USDC,
      nonce: bondNonce(resourceIdFor(stack.creatorAddress, "weather")),
    });
    const copied = { ...registration, cardURI: "https://attacker.example/card", cardHash: keccak256(toHex("evil")) };

    await viem.assertions.revertWithCustomError(
      stack.registry.write.registerFor([stack.creatorAddress, copied, deadline, signature, bond], {
        account: observer.account,
      }),
      stack.registry,
      "AccessControlUnauthorizedAccount",
    );
    // The designated publisher's own submission still goes through, with the card it finalized.
    await viem.assertions.emit(
      stack.registry.write.registerFor([stack.creatorAddress, registration, deadline, signature, bond], {
        account: stack.accounts.other.account,
      }),
      stack.registry,
      "ResourceRegistered",
    );
    const resource = await stack.registry.read.getResource([resourceIdFor(stack.creatorAddress, "weather")]);
    expect(resource.cardHash).to.equal(registration.cardHash);
  });

  it("a creator cannot skip minBond by registering directly: register posts minBond from the creator", async function () {
    const stack = await setup();
    const { admin, creator } = stack.accounts;
    await stack.registry.write.setStrikePolicy([3, 5_000, 2n * USDC], { account: admin.account });
    const registration = buildRegistration(stack, { agentId: stack.agentId, slug: "weather" });
    await viem.assertions.revertWith(
      stack.registry.write.register([registration], { account: creator.account }),
      "ERC20: transfer amount exceeds allowance",
    );
    await stack.token.write.approve([stack.registry.address, 2n * USDC], { account: creator.account });
    const resourceId = resourceIdFor(stack.creatorAddress, "weather");
    await viem.assertions.emitWithArgs(
      stack.registry.write.register([registration], { account: creator.account }),
      stack.registry,
      "BondPosted",
      [resourceId, stack.creatorAddress, 2n * USDC, 2n * USDC],
    );
    const resource = await stack.registry.read.getResource([resourceId]);
    expect(resource.bond).to.equal(2n * USDC);
    expect(await stack.token.read.balanceOf([stack.creatorAddress])).to.equal(98n * USDC);
  });

  it("a creator cannot withdraw the whole bond and reactivate while minBond is 0: the resource is retired", async function () {
    const stack = await setup();
    const { creator } = stack.accounts;
    const registration = buildRegistration(stack, { agentId: stack.agentId, slug: "weather" });
    await stack.registry.write.register([registration], { account: creator.account });
    const resourceId = resourceIdFor(stack.creatorAddress, "weather");
    await stack.token.write.approve([stack.registry.address, 5n * USDC], { account: creator.account });
    await stack.registry.write.postBond([resourceId, 5n * USDC], { account: creator.account });
    await stack.registry.write.deactivate([resourceId], { account: creator.account });
    await networkHelpers.time.increase(await stack.registry.read.bondWithdrawalDelay());
    await stack.registry.write.withdrawBond([resourceId], { account: creator.account });

    await viem.assertions.revertWithCustomErrorWithArgs(
      stack.registry.write.reactivate([resourceId], { account: creator.account }),
      stack.registry,
      "ResourceRetired",
      [resourceId],
    );
    const resource = await stack.registry.read.getResource([resourceId]);
    expect(resource.active).to.equal(false);
    expect(resource.retired).to.equal(true);
  });
});
