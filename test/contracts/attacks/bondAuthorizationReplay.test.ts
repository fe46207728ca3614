import { expect } from "chai";
import { bondNonce } from "../../../services/protocol/bondNonce.ts";
import {
  buildRegistration,
  deployTypedStack,
  mintAgent,
  mintTokens,
  networkHelpers,
  registerResource,
  resourceIdFor,
  signBondAuthorization,
  signRegisterResource,
  USDC,
  viem,
} from "../fixtures.ts";

/**
 * A creator's bond authorization (an EIP-3009 `ReceiveWithAuthorization` to the registry) named only the registry, not
 * the resource. Anyone who saw a pending `registerFor` in the mempool could submit its bond authorization first to
 * `postBondWithAuthorization` for another resource of the same creator: the bond landed there, and the registration
 * then reverted (its authorization was used). The authorization's nonce now carries the first 16 bytes of the resource
 * id it bonds (services/protocol/bondNonce.ts), and the registry credits it to no other resource.
 */
describe("attack: a creator's bond authorization replayed into another resource of the same creator", function () {
  async function setup() {
    const stack = await networkHelpers.loadFixture(deployTypedStack);
    const { creator } = stack.accounts;
    await mintTokens(stack, creator.account.address, 100n * USDC);
    const { resourceId: existing } = await registerResource(stack, { slug: "old" });
    const agentId = await mintAgent(stack, creator);
    const registration = buildRegistration(stack, { agentId, slug: "weather" });
    const deadline = BigInt((await networkHelpers.time.latest()) + 3600);
    const creatorAddress = creator.account.address;
    const signature = await signRegisterResource(stack, creator, creatorAddress, registration, deadline);
    const resourceId = resourceIdFor(creatorAddress, "weather");
    const bond = await signBondAuthorization(stack, creator, { value: 5n * USDC, nonce: bondNonce(resourceId) });
    return { ...stack, existing, registration, deadline, signature, bond, resourceId, creatorAddress };
  }

  it("a mempool observer cannot post a pending registerFor's bond to the creator's other resource", async function () {
    const s = await setup();
    const { bond } = s;
    await viem.assertions.revertWithCustomErrorWithArgs(
      s.registry.write.postBondWithAuthorization(
        [s.existing, s.creatorAddress, bond.value, bond.validAfter, bond.validBefore, bond.nonce, bond.signature],
        { account: s.accounts.buyer.account },
      ),
      s.registry,
      "BondNonceBoundToOtherResource",
      [bond.nonce, s.existing],
    );
    expect((await s.registry.read.getResource([s.existing])).bond).to.equal(0n);

    // The marketplace's registration goes through with its bond.
    await s.registry.write.registerFor([s.creatorAddress, s.registration, s.deadline, s.signature, bond], {
      account: s.accounts.other.account,
    });
    expect((await s.registry.read.getResource([s.resourceId])).bond).to.equal(5n * USDC);
  });

  it("a bond authorization for one resource does not register another with registerFor", async function () {
    const s = await setup();
    const { creator } = s.accounts;
    const other = buildRegistration(s, { agentId: await mintAgent(s, creator), slug: "maps" });
    const signature = await signRegisterResource(s, creator, s.creatorAddress, other, s.deadline);
    await viem.assertions.revertWithCustomErrorWithArgs(
      s.registry.write.registerFor([s.creatorAddress, other, s.deadline, signature, s.bond], {
        account: s.accounts.other.account,
      }),
      s.registry,
      "BondNonceBoundToOtherResource",
      [s.bond.nonce, resourceIdFor(s.creatorAddress, "maps")],
    );
  });
});
