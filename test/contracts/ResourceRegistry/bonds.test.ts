import { expect } from "chai";
import type { Hex } from "viem";
import { encodeFunctionData, keccak256, toHex } from "viem";
import { bondNonce } from "../../../services/protocol/bondNonce.ts";
import type { Stack, TokenAuthorization } from "../fixtures.ts";
import {
  buildRegistration,
  deployTypedStack,
  mintAgent,
  networkHelpers,
  registerResource,
  resourceIdFor,
  signRegisterResource,
  signTokenAuthorization,
  USDC,
  viem,
} from "../fixtures.ts";

const WEEK = 7n * 24n * 60n * 60n;

describe("ResourceRegistry: bonds", function () {
  let stack: Stack;
  let resourceId: Hex;

  beforeEach(async function () {
    stack = await networkHelpers.loadFixture(deployTypedStack);
    ({ resourceId } = await registerResource(stack, { slug: "weather" }));
    await stack.token.write.mint([stack.accounts.creator.account.address, 100n * USDC], {
      account: stack.accounts.admin.account,
    });
  });

  function asCreator() {
    return { account: stack.accounts.creator.account };
  }

  async function postBond(amount: bigint, from = stack.accounts.creator) {
    await stack.token.write.approve([stack.registry.address, amount], { account: from.account });
    await stack.registry.write.postBond([resourceId, amount], { account: from.account });
  }

  async function bondOf(id: Hex = resourceId): Promise<bigint> {
    return (await stack.registry.read.getResource([id])).bond;
  }

  describe("postBond", function () {
    it("pulls the approved stablecoin, adds it to the bond and emits BondPosted with the running total", async function () {
      const { registry, token, accounts } = stack;
      await token.write.approve([registry.address, 10n * USDC], asCreator());
      await viem.assertions.emitWithArgs(
        registry.write.postBond([resourceId, 4n * USDC], asCreator()),
        registry,
        "BondPosted",
        [resourceId, accounts.creator.account.address, 4n * USDC, 4n * USDC],
      );
      await viem.assertions.emitWithArgs(
        registry.write.postBond([resourceId, 6n * USDC], asCreator()),
        registry,
        "BondPosted",
        [resourceId, accounts.creator.account.address, 6n * USDC, 10n * USDC],
      );
      expect(await bondOf()).to.equal(10n * USDC);
      expect(await token.read.balanceOf([registry.address])).to.equal(10n * USDC);
      expect(await token.read.balanceOf([accounts.creator.account.address])).to.equal(90n * USDC);
    });

    it("lets a third party bond someone else's resource", async function () {
      const { registry, token, accounts } = stack;
      await token.write.mint([accounts.other.account.address, USDC], { account: accounts.admin.account });
      await token.write.approve([registry.address, USDC], { account: accounts.other.account });
      await viem.assertions.emitWithArgs(
        registry.write.postBond([resourceId, USDC], { account: accounts.other.account }),
        registry,
        "BondPosted",
        [resourceId, accounts.other.account.address, USDC, USDC],
      );
      expect(await bondOf()).to.equal(USDC);
    });

    it("reverts with ZeroAmount for a zero amount", async function () {
      await viem.assertions.revertWithCustomErrorWithArgs(
        stack.registry.write.postBond([resourceId, 0n], asCreator()),
        stack.registry,
        "ZeroAmount",
        [],
      );
    });

    it("reverts with UnknownResource for an unknown resource", async function () {
      const unknown = resourceIdFor(stack.accounts.creator.account.address, "nothing");
      await viem.assertions.revertWithCustomErrorWithArgs(
        stack.registry.write.postBond([unknown, USDC], asCreator()),
        stack.registry,
        "UnknownResource",
        [unknown],
      );
    });

    it('reverts with the token\'s "transfer amount exceeds allowance" without an approval', async function () {
      await viem.assertions.revertWith(
        stack.registry.write.postBond([resourceId, USDC], asCreator()),
        "ERC20: transfer amount exceeds allowance",
      );
    });

    it("is allowed on an inactive resource, so that it can be reactivated", async function () {
      await stack.registry.write.deactivate([resourceId], asCreator());
      await postBond(USDC);
      expect(await bondOf()).to.equal(USDC);
    });
  });

  describe("postBondWithAuthorization", function () {
    let authorization: TokenAuthorization;
    let signature: Hex;

    beforeEach(async function () {
      const now = BigInt(await networkHelpers.time.latest());
      authorization = {
        from: stack.accounts.creator.account.address,
        to: stack.registry.address,
        value: 5n * USDC,
        validAfter: 0n,
        validBefore: now + 3600n,
        nonce: bondNonce(resourceId),
      };
      signature = await signTokenAuthorization(
        stack,
        stack.accounts.creator,
        "ReceiveWithAuthorization",
        authorization,
      );
    });

    function submit(
      by = stack.accounts.other,
      id: Hex = resourceId,
      auth: TokenAuthorization = authorization,
      sig: Hex = signature,
    ) {
      return stack.registry.write.postBondWithAuthorization(
        [id, auth.from, auth.value, auth.validAfter, auth.validBefore, auth.nonce, sig],
        { account: by.account },
      );
    }

    describe("when an operator submits the creator's ReceiveWithAuthorization", function () {
      it("moves the creator's funds into the bond and emits BondPosted from the creator", async function () {
        const { registry, token, accounts } = stack;
        const hash = await submit();
        await viem.assertions.emitWithArgs(hash, registry, "BondPosted", [
          resourceId,
          accounts.creator.account.address,
          5n * USDC,
          5n * USDC,
        ]);
        await viem.assertions.emitWithArgs(hash, token, "AuthorizationUsed", [
          accounts.creator.account.address,
          authorization.nonce,
        ]);
        await viem.assertions.emitWithArgs(hash, token, "Transfer", [
          accounts.creator.account.address,
          registry.address,
          5n * USDC,
        ]);
        expect(await bondOf()).to.equal(5n * USDC);
        expect(await token.read.balanceOf([accounts.creator.account.address])).to.equal(95n * USDC);
        expect(await token.read.balanceOf([accounts.other.account.address])).to.equal(0n);
        expect(await token.read.authorizationState([accounts.creator.account.address, authorization.nonce])).to.equal(
          true,
        );
      });

      it('cannot be replayed: the second submission reverts with the token\'s "authorization is used or canceled"', async function () {
        await submit();
        await viem.assertions.revertWith(submit(), "FiatTokenV2: authorization is used or canceled");
        expect(await bondOf()).to.equal(5n * USDC);
      });
    });

    describe("when a front-runner copies the authorization from the mempool", function () {
      it('cannot submit it to the token directly: "caller must be the payee"', async function () {
        const { token, accounts } = stack;
        const a = authorization;
        await viem.assertions.revertWith(
          token.write.receiveWithAuthorization(
            [a.from, a.to, a.value, a.validAfter, a.validBefore, a.nonce, signature],
            {
              account: accounts.other.account,
            },
          ),
          "FiatTokenV2: caller must be the payee",
        );
        expect(await token.read.authorizationState([a.from, a.nonce])).to.equal(false);
        await submit();
        expect(await bondOf()).to.equal(5n * USDC);
      });

      it("cannot redirect it as transferWithAuthorization: the signature does not match", async function () {
        const { token, accounts } = stack;
        const a = authorization;
        await viem.assertions.revertWith(
          token.write.transferWithAuthorization(
            [a.from, a.to, a.value, a.validAfter, a.validBefore, a.nonce, signature],
            {
              account: accounts.other.account,
            },
          ),
          "FiatTokenV2: invalid signature",
        );
      });

      it("cannot credit it to a resource of its own: NotCreator", async function () {
        const attacker = stack.accounts.other;
        const { resourceId: attackerResource } = await registerResource(stack, { slug: "trap", creator: attacker });
        await viem.assertions.revertWithCustomErrorWithArgs(
          submit(attacker, attackerResource),
          stack.registry,
          "NotCreator",
          [stack.accounts.creator.account.address, attacker.account.address],
        );
        expect(await bondOf(attackerResource)).to.equal(0n);
        expect(await stack.token.read.authorizationState([authorization.from, authorization.nonce])).to.equal(false);
      });

      it("cannot redirect the funds elsewhere: an authorization to another payee fails the signature check", async function () {
        const toAttacker = { ...authorization, to: stack.accounts.other.account.address };
        const sig = await signTokenAuthorization(stack, stack.accounts.creator, "ReceiveWithAuthorization", toAttacker);
        await viem.assertions.revertWith(
          submit(stack.accounts.other, resourceId, authorization, sig),
          "FiatTokenV2: invalid signature",
        );
      });
    });

    describe("when the authorization is signed by someone other than the creator", function () {
      it("reverts with NotCreator carrying the signer and the creator (sponsors use postBond)", async function () {
        const { token, accounts } = stack;
        await token.write.mint([accounts.other.account.address, 5n * USDC], { account: accounts.admin.account });
        const sponsored = { ...authorization, from: accounts.other.account.address };
        const sig = await signTokenAuthorization(stack, accounts.other, "ReceiveWithAuthorization", sponsored);
        await viem.assertions.revertWithCustomErrorWithArgs(
          submit(accounts.admin, resourceId, sponsored, sig),
          stack.registry,
          "NotCreator",
          [accounts.other.account.address, accounts.creator.account.address],
        );
      });
    });

    describe("when the authorization is not usable", function () {
      it('reverts with the token\'s "authorization is expired" once validBefore has passed', async function () {
        await networkHelpers.time.setNextBlockTimestamp(authorization.validBefore);
        await viem.assertions.revertWith(submit(), "FiatTokenV2: authorization is expired");
      });

      it('reverts with the token\'s "invalid signature" when signed as a TransferWithAuthorization', async function () {
        const sig = await signTokenAuthorization(
          stack,
          stack.accounts.creator,
          "TransferWithAuthorization",
          authorization,
        );
        await viem.assertions.revertWith(
          submit(stack.accounts.other, resourceId, authorization, sig),
          "FiatTokenV2: invalid signature",
        );
      });

      it("reverts with ZeroAmount for a zero value", async function () {
        const zero = { ...authorization, value: 0n };
        await viem.assertions.revertWithCustomErrorWithArgs(
          submit(stack.accounts.other, resourceId, zero),
          stack.registry,
          "ZeroAmount",
          [],
        );
      });

      it("reverts with UnknownResource for an unknown resource", async function () {
        const unknown = resourceIdFor(stack.accounts.creator.account.address, "nothing");
        await viem.assertions.revertWithCustomErrorWithArgs(
          submit(stack.accounts.other, unknown),
          stack.registry,
          "UnknownResource",
          [unknown],
        );
      });
    });
  });

  describe("withdrawBond", function () {
    beforeEach(async function () {
      await postBond(8n * USDC);
    });

    describe("while the resource is active", function () {
      it("reverts with ResourceActive", async function () {
        await viem.assertions.revertWithCustomErrorWithArgs(
          stack.registry.write.withdrawBond([resourceId], asCreator()),
          stack.registry,
          "ResourceActive",
          [resourceId],
        );
      });
    });

    describe("while the withdrawal delay runs", function () {
      it("reverts with BondLocked carrying the unlock time, up to the last second before it", async function () {
        await stack.registry.write.deactivate([resourceId], asCreator());
        const { deactivatedAt } = await stack.registry.read.getResource([resourceId]);
        const unlocksAt = BigInt(deactivatedAt) + WEEK;
        await viem.assertions.revertWithCustomErrorWithArgs(
          stack.registry.write.withdrawBond([resourceId], asCreator()),
          stack.registry,
          "BondLocked",
          [resourceId, unlocksAt],
        );
        await networkHelpers.time.setNextBlockTimestamp(unlocksAt - 1n);
        await viem.assertions.revertWithCustomErrorWithArgs(
          stack.registry.write.withdrawBond([resourceId], asCreator()),
          stack.registry,
          "BondLocked",
          [resourceId, unlocksAt],
        );
      });

      it("restarts the delay when the resource is reactivated and deactivated again", async function () {
        await stack.registry.write.deactivate([resourceId], asCreator());
        await networkHelpers.time.increase(WEEK);
        await stack.registry.write.reactivate([resourceId], asCreator());
        await stack.registry.write.deactivate([resourceId], asCreator());
        const unlocksAt = BigInt(await networkHelpers.time.latest()) + WEEK;
        await viem.assertions.revertWithCustomErrorWithArgs(
          stack.registry.write.withdrawBond([resourceId], asCreator()),
          stack.registry,
          "BondLocked",
          [resourceId, unlocksAt],
        );
      });
    });

    describe("once the delay has passed", function () {
      beforeEach(async function () {
        await stack.registry.write.deactivate([resourceId], asCreator());
        const { deactivatedAt } = await stack.registry.read.getResource([resourceId]);
        await networkHelpers.time.setNextBlockTimestamp(BigInt(deactivatedAt) + WEEK);
      });

      it("returns the whole bond to the creator at exactly the unlock time and emits BondWithdrawn", async function () {
        const { registry, token, accounts } = stack;
        const hash = await registry.write.withdrawBond([resourceId], asCreator());
        await viem.assertions.emitWithArgs(hash, registry, "BondWithdrawn", [
          resourceId,
          accounts.creator.account.address,
          8n * USDC,
        ]);
        await viem.assertions.emitWithArgs(hash, token, "Transfer", [
          registry.address,
          accounts.creator.account.address,
          8n * USDC,
        ]);
        expect(await bondOf()).to.equal(0n);
        expect(await token.read.balanceOf([accounts.creator.account.address])).to.equal(100n * USDC);
        expect(await token.read.balanceOf([registry.address])).to.equal(0n);
      });

      it("returns the amount withdrawn", async function () {
        await networkHelpers.mine();
        const { result } = await stack.registry.simulate.withdrawBond([resourceId], {
          account: stack.accounts.creator.account.address,
        });
        expect(result).to.equal(8n * USDC);
      });

      it("sends a bond posted by a third party to the creator, not to the poster or the payout", async function () {
        const { token, accounts } = stack;
        await token.write.mint([accounts.other.account.address, USDC], { account: accounts.admin.account });
        await postBond(USDC, accounts.other);
        await stack.registry.write.withdrawBond([resourceId], asCreator());
        expect(await token.read.balanceOf([accounts.creator.account.address])).to.equal(101n * USDC);
        expect(await token.read.balanceOf([accounts.other.account.address])).to.equal(0n);
        expect(await token.read.balanceOf([accounts.payout.account.address])).to.equal(0n);
      });

      it("reverts with ZeroAmount when there is nothing left", async function () {
        await stack.registry.write.withdrawBond([resourceId], asCreator());
        await viem.assertions.revertWithCustomErrorWithArgs(
          stack.registry.write.withdrawBond([resourceId], asCreator()),
          stack.registry,
          "ZeroAmount",
          [],
        );
      });

      it("reverts with NotCreator for anyone else", async function () {
        await viem.assertions.revertWithCustomErrorWithArgs(
          stack.registry.write.withdrawBond([resourceId], { account: stack.accounts.other.account }),
          stack.registry,
          "NotCreator",
          [stack.accounts.other.account.address, stack.accounts.creator.account.address],
        );
      });

      it("retires the resource, so reactivation then reverts with ResourceRetired", async function () {
        await stack.registry.write.withdrawBond([resourceId], asCreator());
        await viem.assertions.revertWithCustomErrorWithArgs(
          stack.registry.write.reactivate([resourceId], asCreator()),
          stack.registry,
          "ResourceRetired",
          [resourceId],
        );
      });
    });
  });

  describe("when the stablecoin calls back into the registry", function () {
    /** A registry whose stablecoin is a HostileToken, with `minBond` (0: registering pulls nothing), and a resource. */
    async function hostileRegistry({ minBond = 0n } = {}) {
      const { identity, accounts } = stack;
      const hostile = await viem.deployContract("HostileToken", []);
      const registry = await viem.deployContract("ResourceRegistry", [
        hostile.address,
        identity.address,
        accounts.treasury.account.address,
        accounts.admin.account.address,
        3,
        5_000,
        minBond,
        0n,
        0,
      ]);
      await registry.write.grantRole([await registry.read.FACILITATOR_ROLE(), accounts.facilitator.account.address], {
        account: accounts.admin.account,
      });
      await hostile.write.mint([accounts.creator.account.address, 10n * USDC]);
      await hostile.write.approve([registry.address, 10n * USDC], { account: accounts.creator.account });
      const agentId = await mintAgent(stack, accounts.creator, "ipfs://hostile");
      await registry.write.register([buildRegistration(stack, { agentId, slug: "hostile" })], {
        account: accounts.creator.account,
      });
      const id = resourceIdFor(accounts.creator.account.address, "hostile");
      return { hostile, registry, id };
    }

    it("rejects re-entering register from inside register's bond pull (ReentrancyGuardReentrantCall)", async function () {
      const { hostile, registry } = await hostileRegistry({ minBond: 1n });
      const { creator } = stack.accounts;
      const inner = buildRegistration(stack, {
        agentId: await mintAgent(stack, creator, "ipfs://inner"),
        slug: "inner",
      });
      await hostile.write.arm([
        registry.address,
        encodeFunctionData({ abi: registry.abi, functionName: "register", args: [inner] }),
        true,
      ]);
      const outer = buildRegistration(stack, {
        agentId: await mintAgent(stack, creator, "ipfs://outer"),
        slug: "outer",
      });
      await viem.assertions.revertWithCustomErrorWithArgs(
        registry.write.register([outer], { account: creator.account }),
        registry,
        "ReentrancyGuardReentrantCall",
        [],
      );
    });

    it("rejects re-entering registerFor from inside its bond pull, even from a token holding PUBLISHER_ROLE", async function () {
      const { hostile, registry } = await hostileRegistry({ minBond: 1n });
      const { admin, creator, other } = stack.accounts;
      const publisherRole = await registry.read.PUBLISHER_ROLE();
      for (const publisher of [hostile.address, other.account.address])
        await registry.write.grantRole([publisherRole, publisher], { account: admin.account });
      const registration = buildRegistration(stack, {
        agentId: await mintAgent(stack, creator, "ipfs://for"),
        slug: "for",
      });
      const deadline = BigInt(await networkHelpers.time.latest()) + 3_600n;
      const signature = await signRegisterResource(
        { ...stack, registry },
        creator,
        creator.account.address,
        registration,
        deadline,
      );
      // The hostile token checks no signature on receiveWithAuthorization; the nonce is bound to the resource.
      const bond = {
        value: 1n,
        validAfter: 0n,
        validBefore: deadline,
        nonce: bondNonce(resourceIdFor(creator.account.address, "for")),
        signature: "0x" as Hex,
      };
      const args = [creator.account.address, registration, deadline, signature, bond] as const;
      await hostile.write.arm([
        registry.address,
        encodeFunctionData({ abi: registry.abi, functionName: "registerFor", args }),
        true,
      ]);
      await viem.assertions.revertWithCustomErrorWithArgs(
        registry.write.registerFor(args, { account: other.account }),
        registry,
        "ReentrancyGuardReentrantCall",
        [],
      );
    });

    it("rejects re-entering postBond from inside postBond's transfer (ReentrancyGuardReentrantCall)", async function () {
      const { hostile, registry, id } = await hostileRegistry();
      const payload = encodeFunctionData({ abi: registry.abi, functionName: "postBond", args: [id, 1n] });
      await hostile.write.arm([registry.address, payload, true]);
      await viem.assertions.revertWithCustomErrorWithArgs(
        registry.write.postBond([id, USDC], { account: stack.accounts.creator.account }),
        registry,
        "ReentrancyGuardReentrantCall",
        [],
      );
      expect((await registry.read.getResource([id])).bond).to.equal(0n);
    });

    it("rejects re-entering postBondWithAuthorization from inside its own pull (ReentrancyGuardReentrantCall)", async function () {
      const { hostile, registry, id } = await hostileRegistry();
      const { creator } = stack.accounts;
      const validBefore = BigInt(await networkHelpers.time.latest()) + 3_600n;
      // The hostile token checks no signature on receiveWithAuthorization; each nonce is bound to the resource.
      const authorization = (value: bigint) =>
        [id, creator.account.address, value, 0n, validBefore, bondNonce(id), "0x"] as const;
      await hostile.write.arm([
        registry.address,
        encodeFunctionData({
          abi: registry.abi,
          functionName: "postBondWithAuthorization",
          args: authorization(1n),
        }),
        true,
      ]);
      await viem.assertions.revertWithCustomErrorWithArgs(
        registry.write.postBondWithAuthorization(authorization(USDC), { account: creator.account }),
        registry,
        "ReentrancyGuardReentrantCall",
        [],
      );
      expect((await registry.read.getResource([id])).bond).to.equal(0n);
    });

    it("rejects re-entering withdrawBond from inside a slash's transfer to the treasury", async function () {
      const { hostile, registry, id } = await hostileRegistry();
      await registry.write.postBond([id, USDC], { account: stack.accounts.creator.account });
      const payload = encodeFunctionData({ abi: registry.abi, functionName: "withdrawBond", args: [id] });
      await hostile.write.arm([registry.address, payload, true]);
      const asFacilitator = { account: stack.accounts.facilitator.account };
      const buyer = stack.accounts.buyer.account.address;
      for (const label of ["idem-1", "idem-2"]) {
        await registry.write.recordStrike([id, buyer, keccak256(toHex(label)), "timeout"], asFacilitator);
      }
      await viem.assertions.revertWithCustomErrorWithArgs(
        registry.write.recordStrike([id, buyer, keccak256(toHex("idem")), "timeout"], {
          account: stack.accounts.facilitator.account,
        }),
        registry,
        "ReentrancyGuardReentrantCall",
        [],
      );
      expect((await registry.read.getResource([id])).bond).to.equal(USDC);
    });
  });
});
