import { expect } from "chai";
import type { Hex } from "viem";
import { encodeFunctionData, hashTypedData, keccak256, toHex } from "viem";
import { bondNonce } from "../../../services/protocol/bondNonce.ts";
import type { BondAuthorization, Registration, Signer, Stack } from "../fixtures.ts";
import {
  buildRegistration,
  deployTypedStack,
  mintAgent,
  mintTokens,
  NO_BOND,
  networkHelpers,
  REGISTER_RESOURCE_TYPES,
  registerResourceMessage,
  resourceIdFor,
  signBondAuthorization,
  signCancelAuthorization,
  signRegisterResource,
  USDC,
  viem,
} from "../fixtures.ts";

async function deadlineIn(seconds: number): Promise<bigint> {
  return BigInt((await networkHelpers.time.latest()) + seconds);
}

describe("ResourceRegistry: registerFor (registration and bond in one transaction)", function () {
  let stack: Stack;
  let agentId: bigint;
  let registration: Registration;
  let creator: Hex;
  let resourceId: Hex;

  beforeEach(async function () {
    stack = await networkHelpers.loadFixture(deployTypedStack);
    agentId = await mintAgent(stack, stack.accounts.creator);
    registration = buildRegistration(stack, { agentId, slug: "weather" });
    creator = stack.accounts.creator.account.address;
    resourceId = resourceIdFor(creator, "weather");
    await mintTokens(stack, creator, 100n * USDC);
  });

  function submit(fields: {
    by?: Signer;
    who?: Hex;
    reg?: Registration;
    deadline: bigint;
    signature: Hex;
    bond?: BondAuthorization;
  }) {
    const {
      by = stack.accounts.other,
      who = creator,
      reg = registration,
      deadline,
      signature,
      bond = NO_BOND,
    } = fields;
    return stack.registry.write.registerFor([who, reg, deadline, signature, bond], { account: by.account });
  }

  async function signed(reg: Registration = registration, deadline?: bigint) {
    const at = deadline ?? (await deadlineIn(3600));
    return { deadline: at, signature: await signRegisterResource(stack, stack.accounts.creator, creator, reg, at) };
  }

  async function expectNothingRegistered() {
    await viem.assertions.revertWithCustomErrorWithArgs(
      stack.registry.read.getResource([resourceId]),
      stack.registry,
      "UnknownResource",
      [resourceId],
    );
    expect(await stack.registry.read.resourceOfAgent([agentId])).to.equal(`0x${"00".repeat(32)}`);
    expect(await stack.token.read.balanceOf([creator])).to.equal(100n * USDC);
    expect(await stack.token.read.balanceOf([stack.registry.address])).to.equal(0n);
  }

  describe("hashRegistration", function () {
    it("is the EIP-712 digest of the RegisterResource type string", async function () {
      const deadline = 1_900_000_000n;
      const expected = hashTypedData({
        domain: { name: "ResourceRegistry", version: "1", chainId: 5042002, verifyingContract: stack.registry.address },
        types: REGISTER_RESOURCE_TYPES,
        primaryType: "RegisterResource",
        message: registerResourceMessage(creator, registration, deadline),
      });
      expect(await stack.registry.read.hashRegistration([creator, registration, deadline])).to.equal(expected);
    });

    it("does not cover the agent id, the card URI or the card hash, which exist only after the creator signs", async function () {
      const deadline = 1_900_000_000n;
      const other = {
        ...registration,
        agentId: 99n,
        cardURI: "https://market.example/card",
        cardHash: keccak256(toHex("card")),
      };
      expect(await stack.registry.read.hashRegistration([creator, other, deadline])).to.equal(
        await stack.registry.read.hashRegistration([creator, registration, deadline]),
      );
    });
  });

  describe("when an operator submits the creator's signature and bond authorization", function () {
    it("registers the resource, posts the creator's bond in the same transaction and emits both events", async function () {
      const { registry, token, accounts } = stack;
      const { deadline, signature } = await signed();
      const bond = await signBondAuthorization(stack, accounts.creator, {
        value: 5n * USDC,
        nonce: bondNonce(resourceId),
      });
      const hash = await submit({ deadline, signature, bond });
      await viem.assertions.emitWithArgs(hash, registry, "ResourceRegistered", [
        resourceId,
        creator,
        agentId,
        "weather",
        registration.payout,
        registration.category,
        registration.pricing,
        registration.cardURI,
        registration.cardHash,
      ]);
      await viem.assertions.emitWithArgs(hash, registry, "BondPosted", [resourceId, creator, 5n * USDC, 5n * USDC]);
      await viem.assertions.emitWithArgs(hash, token, "Transfer", [creator, registry.address, 5n * USDC]);
      await viem.assertions.emitWithArgs(hash, token, "AuthorizationUsed", [creator, bond.nonce]);
      const resource = await registry.read.getResource([resourceId]);
      expect(resource.bond).to.equal(5n * USDC);
      expect(resource.active).to.equal(true);
      expect(await registry.read.resourceOfAgent([agentId])).to.equal(resourceId);
      expect(await token.read.balanceOf([creator])).to.equal(95n * USDC);
      expect(await token.read.balanceOf([accounts.other.account.address])).to.equal(0n);
    });

    it("lets the submitter choose the card URI and hash, but only an agent the creator owns", async function () {
      const finalized = {
        ...registration,
        cardURI: "https://market.example/card.json",
        cardHash: keccak256(toHex("final card")),
      };
      const { deadline, signature } = await signed(registration);
      await submit({ reg: finalized, deadline, signature });
      const resource = await stack.registry.read.getResource([resourceId]);
      expect(resource.cardURI).to.equal(finalized.cardURI);
      expect(resource.cardHash).to.equal(finalized.cardHash);
    });

    it("reverts with NotAgentOwner when the submitter supplies an agent the creator does not own", async function () {
      const foreignAgent = await mintAgent(stack, stack.accounts.other);
      const { deadline, signature } = await signed();
      await viem.assertions.revertWithCustomErrorWithArgs(
        submit({ reg: { ...registration, agentId: foreignAgent }, deadline, signature }),
        stack.registry,
        "NotAgentOwner",
        [foreignAgent, creator, stack.accounts.other.account.address],
      );
    });

    it("posts no bond for a zero-value authorization while minBond is 0", async function () {
      const { deadline, signature } = await signed();
      const hash = await submit({ deadline, signature, bond: NO_BOND });
      const receipt = await stack.publicClient.waitForTransactionReceipt({ hash });
      const names = (
        await stack.publicClient.getContractEvents({
          address: stack.registry.address,
          abi: stack.registry.abi,
          blockHash: receipt.blockHash,
        })
      ).map((log) => log.eventName);
      expect(names).to.deep.equal(["ResourceRegistered"]);
      expect((await stack.registry.read.getResource([resourceId])).bond).to.equal(0n);
    });

    it("accepts the signature in the very second of its deadline", async function () {
      const { deadline, signature } = await signed(registration, await deadlineIn(100));
      await networkHelpers.time.setNextBlockTimestamp(deadline);
      await submit({ deadline, signature });
      expect((await stack.registry.read.getResource([resourceId])).active).to.equal(true);
    });

    it("cannot be replayed: the second submission hits ResourceExists", async function () {
      const { deadline, signature } = await signed();
      await submit({ deadline, signature });
      await viem.assertions.revertWithCustomErrorWithArgs(
        submit({ deadline, signature }),
        stack.registry,
        "ResourceExists",
        [resourceId],
      );
    });
  });

  describe("when the bond fails, nothing is registered", function () {
    it("reverts with BondTooLow for a missing bond once minBond is set", async function () {
      await stack.registry.write.setStrikePolicy([3, 5_000, USDC], { account: stack.accounts.admin.account });
      const { deadline, signature } = await signed();
      await viem.assertions.revertWithCustomErrorWithArgs(
        submit({ deadline, signature, bond: NO_BOND }),
        stack.registry,
        "BondTooLow",
        [resourceId, 0n, USDC],
      );
      await expectNothingRegistered();
    });

    it("reverts with BondTooLow for a bond below minBond", async function () {
      await stack.registry.write.setStrikePolicy([3, 5_000, USDC], { account: stack.accounts.admin.account });
      const { deadline, signature } = await signed();
      const bond = await signBondAuthorization(stack, stack.accounts.creator, {
        value: USDC - 1n,
        nonce: bondNonce(resourceId),
      });
      await viem.assertions.revertWithCustomErrorWithArgs(
        submit({ deadline, signature, bond }),
        stack.registry,
        "BondTooLow",
        [resourceId, USDC - 1n, USDC],
      );
      await expectNothingRegistered();
    });

    it("accepts a bond of exactly minBond", async function () {
      await stack.registry.write.setStrikePolicy([3, 5_000, USDC], { account: stack.accounts.admin.account });
      const { deadline, signature } = await signed();
      const bond = await signBondAuthorization(stack, stack.accounts.creator, {
        value: USDC,
        nonce: bondNonce(resourceId),
      });
      await submit({ deadline, signature, bond });
      expect((await stack.registry.read.getResource([resourceId])).bond).to.equal(USDC);
    });

    it('reverts with the token\'s "invalid signature" when the operator signed the bond, not the creator', async function () {
      const { deadline, signature } = await signed();
      const bond = await signBondAuthorization(stack, stack.accounts.other, {
        value: 5n * USDC,
        nonce: bondNonce(resourceId),
        from: creator,
      });
      await viem.assertions.revertWith(submit({ deadline, signature, bond }), "FiatTokenV2: invalid signature");
      await expectNothingRegistered();
    });

    it('reverts with the token\'s "authorization is expired" for an expired bond authorization', async function () {
      const { deadline, signature } = await signed();
      const validBefore = await deadlineIn(5);
      const bond = await signBondAuthorization(stack, stack.accounts.creator, {
        value: 5n * USDC,
        nonce: bondNonce(resourceId),
        validBefore,
      });
      await networkHelpers.time.setNextBlockTimestamp(validBefore + 1n);
      await viem.assertions.revertWith(submit({ deadline, signature, bond }), "FiatTokenV2: authorization is expired");
      await networkHelpers.mine();
      await expectNothingRegistered();
    });

    it('reverts with the token\'s "authorization is used or canceled" for a bond authorization spent before', async function () {
      const { deadline, signature } = await signed();
      const bond = await signBondAuthorization(stack, stack.accounts.creator, {
        value: 5n * USDC,
        nonce: bondNonce(resourceId),
      });
      const cancel = await signCancelAuthorization(stack, stack.accounts.creator, bond.nonce);
      await stack.token.write.cancelAuthorization([creator, bond.nonce, cancel], {
        account: stack.accounts.creator.account,
      });
      await viem.assertions.revertWith(
        submit({ deadline, signature, bond }),
        "FiatTokenV2: authorization is used or canceled",
      );
      await expectNothingRegistered();
    });

    it('reverts with the token\'s "transfer amount exceeds balance" when the creator cannot fund the bond', async function () {
      const { deadline, signature } = await signed();
      const bond = await signBondAuthorization(stack, stack.accounts.creator, {
        value: 101n * USDC,
        nonce: bondNonce(resourceId),
      });
      await viem.assertions.revertWith(submit({ deadline, signature, bond }), "ERC20: transfer amount exceeds balance");
      await expectNothingRegistered();
    });
  });

  describe("when the deadline has passed", function () {
    it("reverts with SignatureExpired carrying the deadline", async function () {
      const { deadline, signature } = await signed(registration, await deadlineIn(10));
      await networkHelpers.time.increaseTo(deadline + 1n);
      await viem.assertions.revertWithCustomErrorWithArgs(
        submit({ deadline, signature }),
        stack.registry,
        "SignatureExpired",
        [deadline],
      );
    });
  });

  describe("when the signature is not the creator's", function () {
    it("reverts with InvalidCreatorSignature when someone else signed", async function () {
      const deadline = await deadlineIn(3600);
      const signature = await signRegisterResource(stack, stack.accounts.other, creator, registration, deadline);
      await viem.assertions.revertWithCustomErrorWithArgs(
        submit({ deadline, signature }),
        stack.registry,
        "InvalidCreatorSignature",
        [creator],
      );
    });

    for (const [field, change] of [
      ["payout", (r: Registration, s: Stack) => ({ ...r, payout: s.accounts.other.account.address })],
      ["slug", (r: Registration) => ({ ...r, slug: "weather2" })],
      ["category", (r: Registration) => ({ ...r, category: "finance" })],
      ["pricing", (r: Registration) => ({ ...r, pricing: { ...r.pricing, max: r.pricing.max + 1n } })],
    ] as const) {
      it(`reverts with InvalidCreatorSignature when the operator changes the ${field} it was signed for`, async function () {
        const { deadline, signature } = await signed();
        await viem.assertions.revertWithCustomErrorWithArgs(
          submit({ reg: change(registration, stack), deadline, signature }),
          stack.registry,
          "InvalidCreatorSignature",
          [creator],
        );
      });
    }

    it("reverts with InvalidCreatorSignature when the operator extends the deadline", async function () {
      const { deadline, signature } = await signed();
      await viem.assertions.revertWithCustomErrorWithArgs(
        submit({ deadline: deadline + 1n, signature }),
        stack.registry,
        "InvalidCreatorSignature",
        [creator],
      );
    });

    it("reverts with InvalidCreatorSignature for a signature made for another registry", async function () {
      const deadline = await deadlineIn(3600);
      const signature = await stack.accounts.creator.signTypedData({
        domain: { name: "ResourceRegistry", version: "1", chainId: 5042002, verifyingContract: stack.escrow.address },
        types: REGISTER_RESOURCE_TYPES,
        primaryType: "RegisterResource",
        message: registerResourceMessage(creator, registration, deadline),
      });
      await viem.assertions.revertWithCustomErrorWithArgs(
        submit({ deadline, signature }),
        stack.registry,
        "InvalidCreatorSignature",
        [creator],
      );
    });

    it("reverts with InvalidCreatorSignature for malformed signature bytes", async function () {
      const deadline = await deadlineIn(3600);
      await viem.assertions.revertWithCustomErrorWithArgs(
        submit({ deadline, signature: "0x1234" }),
        stack.registry,
        "InvalidCreatorSignature",
        [creator],
      );
    });
  });

  describe("when the signature is valid but the registration is not", function () {
    it("still enforces NotAgentOwner for the signing creator", async function () {
      const other = stack.accounts.other.account.address;
      const deadline = await deadlineIn(3600);
      const signature = await signRegisterResource(stack, stack.accounts.other, other, registration, deadline);
      await viem.assertions.revertWithCustomErrorWithArgs(
        submit({ who: other, deadline, signature }),
        stack.registry,
        "NotAgentOwner",
        [agentId, other, creator],
      );
    });
  });

  describe("when the creator is an ERC-1271 contract wallet", function () {
    async function walletWithAgent() {
      const wallet = await viem.deployContract("RegistryERC1271Wallet", [creator]);
      const data = encodeFunctionData({
        abi: stack.identity.abi,
        functionName: "register",
        args: ["ipfs://wallet-agent"],
      });
      await wallet.write.execute([stack.identity.address, data], { account: stack.accounts.creator.account });
      const walletAgentId = agentId + 1n;
      expect((await stack.identity.read.ownerOf([walletAgentId])).toLowerCase()).to.equal(wallet.address.toLowerCase());
      return { wallet, walletAgentId };
    }

    it("accepts the wallet's owner signing on its behalf, bond included", async function () {
      const { wallet, walletAgentId } = await walletWithAgent();
      await mintTokens(stack, wallet.address, 10n * USDC);
      const forWallet = buildRegistration(stack, { agentId: walletAgentId, slug: "wallet" });
      const deadline = await deadlineIn(3600);
      const signature = await signRegisterResource(stack, stack.accounts.creator, wallet.address, forWallet, deadline);
      const bond = await signBondAuthorization(stack, stack.accounts.creator, {
        value: 2n * USDC,
        nonce: bondNonce(resourceIdFor(wallet.address, "wallet")),
        from: wallet.address,
      });
      await submit({ who: wallet.address, reg: forWallet, deadline, signature, bond });
      const resource = await stack.registry.read.getResource([resourceIdFor(wallet.address, "wallet")]);
      expect(resource.creator.toLowerCase()).to.equal(wallet.address.toLowerCase());
      expect(resource.agentId).to.equal(walletAgentId);
      expect(resource.bond).to.equal(2n * USDC);
    });

    it("reverts with InvalidCreatorSignature when the wallet rejects the signature", async function () {
      const { wallet, walletAgentId } = await walletWithAgent();
      await wallet.write.setRejectAll([true], { account: stack.accounts.creator.account });
      const forWallet = buildRegistration(stack, { agentId: walletAgentId, slug: "wallet" });
      const deadline = await deadlineIn(3600);
      const signature = await signRegisterResource(stack, stack.accounts.creator, wallet.address, forWallet, deadline);
      await viem.assertions.revertWithCustomErrorWithArgs(
        submit({ who: wallet.address, reg: forWallet, deadline, signature }),
        stack.registry,
        "InvalidCreatorSignature",
        [wallet.address],
      );
    });
  });
});
