import { expect } from "chai";
import { zeroAddress, zeroHash } from "viem";
import type { Stack } from "../fixtures.ts";
import { deployTypedStack, networkHelpers, viem } from "../fixtures.ts";

/**
 * The admin role moved in one step and at once: whoever held the admin key (or a key it was leaked to) could
 * `grantRole(DEFAULT_ADMIN_ROLE, attacker)` and act as admin in the same block, with nothing for anyone to see coming.
 * Both contracts that have an admin (PaymentEscrow, ResourceRegistry) now use OpenZeppelin's
 * AccessControlDefaultAdminRules: one admin, moved only by beginDefaultAdminTransfer and, once the admin delay has
 * passed, acceptDefaultAdminTransfer by the new admin; the old admin can cancel in between.
 */
describe("attack: the admin role taken over in one step", function () {
  async function setup() {
    const stack = await networkHelpers.loadFixture(deployTypedStack);
    return { ...stack, admin: stack.accounts.admin, attacker: stack.accounts.other };
  }

  for (const name of ["escrow", "registry"] as const) {
    describe(`on the ${name}`, function () {
      it("grantRole(DEFAULT_ADMIN_ROLE) is refused, so no second admin appears at once", async function () {
        const stack = await setup();
        // Both share AccessControlDefaultAdminRules' functions; their generated types differ elsewhere.
        const contract: Stack["registry"] = stack[name] as any;
        await viem.assertions.revertWithCustomError(
          contract.write.grantRole([zeroHash, stack.attacker.account.address], { account: stack.admin.account }),
          contract,
          "AccessControlEnforcedDefaultAdminRules",
        );
        expect(await contract.read.hasRole([zeroHash, stack.attacker.account.address])).to.equal(false);
        expect((await contract.read.defaultAdmin()).toLowerCase()).to.equal(stack.admin.account.address.toLowerCase());
      });

      it("a transfer waits the admin delay, can be cancelled meanwhile, and then needs the new admin's acceptance", async function () {
        const stack = await setup();
        // Both share AccessControlDefaultAdminRules' functions; their generated types differ elsewhere.
        const contract: Stack["registry"] = stack[name] as any;
        const delay = await contract.read.defaultAdminDelay();
        expect(delay).to.equal(3 * 24 * 60 * 60);
        await contract.write.beginDefaultAdminTransfer([stack.attacker.account.address], {
          account: stack.admin.account,
        });
        const [pending, schedule] = await contract.read.pendingDefaultAdmin();
        expect(pending.toLowerCase()).to.equal(stack.attacker.account.address.toLowerCase());
        await viem.assertions.revertWithCustomErrorWithArgs(
          contract.write.acceptDefaultAdminTransfer({ account: stack.attacker.account }),
          contract,
          "AccessControlEnforcedDefaultAdminDelay",
          [schedule],
        );
        await contract.write.cancelDefaultAdminTransfer({ account: stack.admin.account });
        await networkHelpers.time.increaseTo(schedule + 1);
        await viem.assertions.revertWithCustomErrorWithArgs(
          contract.write.acceptDefaultAdminTransfer({ account: stack.attacker.account }),
          contract,
          "AccessControlInvalidDefaultAdmin",
          [stack.attacker.account.address],
        );
        expect((await contract.read.pendingDefaultAdmin())[0]).to.equal(zeroAddress);

        // An honest transfer: begun, waited out, accepted by the new admin, who alone is admin then.
        const next = stack.accounts.treasury;
        await contract.write.beginDefaultAdminTransfer([next.account.address], { account: stack.admin.account });
        await networkHelpers.time.increase(Number(delay) + 1);
        await contract.write.acceptDefaultAdminTransfer({ account: next.account });
        expect(await contract.read.hasRole([zeroHash, next.account.address])).to.equal(true);
        expect(await contract.read.hasRole([zeroHash, stack.admin.account.address])).to.equal(false);
      });
    });
  }
});
