import { expect } from "chai";
import type { Address, Hex } from "viem";
import { domainSeparator, getAddress, keccak256, parseSignature, toHex, zeroAddress } from "viem";
import type { Signer, Stack, TokenAuthorization } from "../fixtures.ts";
import { deployTypedStack, networkHelpers, signTokenAuthorization, tokenDomainOf, USDC, viem } from "../fixtures.ts";

const PERMIT_TYPES = {
  Permit: [
    { name: "owner", type: "address" },
    { name: "spender", type: "address" },
    { name: "value", type: "uint256" },
    { name: "nonce", type: "uint256" },
    { name: "deadline", type: "uint256" },
  ],
} as const;

const CANCEL_TYPES = {
  CancelAuthorization: [
    { name: "authorizer", type: "address" },
    { name: "nonce", type: "bytes32" },
  ],
} as const;

function vrs(signature: Hex): { v: number; r: Hex; s: Hex } {
  const { r, s, v, yParity } = parseSignature(signature);
  return { v: v === undefined ? 27 + yParity : Number(v), r, s };
}

describe("TestStablecoin", function () {
  let stack: Stack;
  let alice: Signer;
  let bob: Signer;
  let relayer: Signer;

  beforeEach(async function () {
    stack = await networkHelpers.loadFixture(deployTypedStack);
    alice = stack.accounts.buyer;
    bob = stack.accounts.payout;
    relayer = stack.accounts.relayer;
    await stack.token.write.mint([alice.account.address, 100n * USDC], { account: stack.accounts.admin.account });
  });

  function as(signer: Signer) {
    return { account: signer.account };
  }

  async function now(): Promise<bigint> {
    return BigInt(await networkHelpers.time.latest());
  }

  async function authorizationFor(overrides: Partial<TokenAuthorization> = {}): Promise<TokenAuthorization> {
    return {
      from: alice.account.address,
      to: bob.account.address,
      value: 3n * USDC,
      validAfter: 0n,
      validBefore: (await now()) + 3600n,
      nonce: keccak256(toHex("nonce-1")),
      ...overrides,
    };
  }

  function signCancel(signer: Signer, authorizer: Address, nonce: Hex) {
    return signer.signTypedData({
      domain: tokenDomainOf(stack),
      types: CANCEL_TYPES,
      primaryType: "CancelAuthorization",
      message: { authorizer, nonce },
    });
  }

  function signPermit(
    signer: Signer,
    message: { owner: Address; spender: Address; value: bigint; nonce: bigint; deadline: bigint },
  ) {
    return signer.signTypedData({ domain: tokenDomainOf(stack), types: PERMIT_TYPES, primaryType: "Permit", message });
  }

  function transferWith(a: TokenAuthorization, signature: Hex, by: Signer = relayer) {
    return stack.token.write.transferWithAuthorization(
      [a.from, a.to, a.value, a.validAfter, a.validBefore, a.nonce, signature],
      as(by),
    );
  }

  function receiveWith(a: TokenAuthorization, signature: Hex, by: Signer = bob) {
    return stack.token.write.receiveWithAuthorization(
      [a.from, a.to, a.value, a.validAfter, a.validBefore, a.nonce, signature],
      as(by),
    );
  }

  describe("metadata", function () {
    it("is USDC with 6 decimals", async function () {
      expect(await stack.token.read.name()).to.equal("USDC");
      expect(await stack.token.read.symbol()).to.equal("USDC");
      expect(await stack.token.read.decimals()).to.equal(6);
    });

    it("reports the EIP-712 domain {USDC, 2} on chain 5042002 through eip712Domain and DOMAIN_SEPARATOR", async function () {
      const [fields, name, version, chainId, verifyingContract, salt, extensions] =
        await stack.token.read.eip712Domain();
      expect(fields).to.equal("0x0f");
      expect([name, version, chainId]).to.deep.equal(["USDC", "2", 5042002n]);
      expect(getAddress(verifyingContract)).to.equal(getAddress(stack.token.address));
      expect(salt).to.equal(`0x${"00".repeat(32)}`);
      expect(extensions).to.deep.equal([]);
      expect(await stack.token.read.DOMAIN_SEPARATOR()).to.equal(domainSeparator({ domain: tokenDomainOf(stack) }));
    });

    it("exposes the EIP-2612 and EIP-3009 type hashes", async function () {
      const { token } = stack;
      expect(await token.read.PERMIT_TYPEHASH()).to.equal(
        keccak256(toHex("Permit(address owner,address spender,uint256 value,uint256 nonce,uint256 deadline)")),
      );
      expect(await token.read.TRANSFER_WITH_AUTHORIZATION_TYPEHASH()).to.equal(
        keccak256(
          toHex(
            "TransferWithAuthorization(address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce)",
          ),
        ),
      );
      expect(await token.read.RECEIVE_WITH_AUTHORIZATION_TYPEHASH()).to.equal(
        keccak256(
          toHex(
            "ReceiveWithAuthorization(address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce)",
          ),
        ),
      );
      expect(await token.read.CANCEL_AUTHORIZATION_TYPEHASH()).to.equal(
        keccak256(toHex("CancelAuthorization(address authorizer,bytes32 nonce)")),
      );
    });
  });

  describe("mint", function () {
    it("creates tokens for the minter role and emits Transfer from zero", async function () {
      const { token, accounts } = stack;
      await viem.assertions.emitWithArgs(
        token.write.mint([bob.account.address, 7n], as(accounts.admin)),
        token,
        "Transfer",
        [zeroAddress, bob.account.address, 7n],
      );
      expect(await token.read.balanceOf([bob.account.address])).to.equal(7n);
      expect(await token.read.totalSupply()).to.equal(100n * USDC + 7n);
    });

    it("reverts with AccessControlUnauthorizedAccount for anyone without MINTER_ROLE", async function () {
      const { token, accounts } = stack;
      const role = await token.read.MINTER_ROLE();
      expect(role).to.equal(keccak256(toHex("MINTER_ROLE")));
      await viem.assertions.revertWithCustomErrorWithArgs(
        token.write.mint([bob.account.address, 1n], as(accounts.other)),
        token,
        "AccessControlUnauthorizedAccount",
        [accounts.other.account.address, role],
      );
    });

    it("follows grantRole: a new minter can mint", async function () {
      const { token, accounts } = stack;
      await token.write.grantRole([await token.read.MINTER_ROLE(), accounts.other.account.address], as(accounts.admin));
      await token.write.mint([bob.account.address, 1n], as(accounts.other));
      expect(await token.read.balanceOf([bob.account.address])).to.equal(1n);
    });
  });

  describe("ERC-20 basics", function () {
    it("transfers, approves and transfers from an allowance", async function () {
      const { token } = stack;
      await viem.assertions.emitWithArgs(
        token.write.transfer([bob.account.address, USDC], as(alice)),
        token,
        "Transfer",
        [alice.account.address, bob.account.address, USDC],
      );
      await viem.assertions.emitWithArgs(
        token.write.approve([relayer.account.address, 2n * USDC], as(alice)),
        token,
        "Approval",
        [alice.account.address, relayer.account.address, 2n * USDC],
      );
      await token.write.transferFrom([alice.account.address, bob.account.address, 2n * USDC], as(relayer));
      expect(await token.read.balanceOf([bob.account.address])).to.equal(3n * USDC);
      expect(await token.read.allowance([alice.account.address, relayer.account.address])).to.equal(0n);
    });

    it("reverts with ERC20InsufficientBalance beyond the balance", async function () {
      await viem.assertions.revertWithCustomErrorWithArgs(
        stack.token.write.transfer([alice.account.address, 1n], as(bob)),
        stack.token,
        "ERC20InsufficientBalance",
        [bob.account.address, 0n, 1n],
      );
    });
  });

  describe("permit", function () {
    it("approves with the owner's signature, emits Approval and increments the nonce", async function () {
      const { token } = stack;
      const deadline = (await now()) + 600n;
      const signature = await signPermit(alice, {
        owner: alice.account.address,
        spender: relayer.account.address,
        value: 5n * USDC,
        nonce: 0n,
        deadline,
      });
      const { v, r, s } = vrs(signature);
      expect(await token.read.nonces([alice.account.address])).to.equal(0n);
      await viem.assertions.emitWithArgs(
        token.write.permit([alice.account.address, relayer.account.address, 5n * USDC, deadline, v, r, s], as(relayer)),
        token,
        "Approval",
        [alice.account.address, relayer.account.address, 5n * USDC],
      );
      expect(await token.read.allowance([alice.account.address, relayer.account.address])).to.equal(5n * USDC);
      expect(await token.read.nonces([alice.account.address])).to.equal(1n);
    });

    it("cannot be replayed: the nonce moved, so the same signature no longer verifies", async function () {
      const { token } = stack;
      const deadline = (await now()) + 600n;
      const signature = await signPermit(alice, {
        owner: alice.account.address,
        spender: relayer.account.address,
        value: USDC,
        nonce: 0n,
        deadline,
      });
      const { v, r, s } = vrs(signature);
      await token.write.permit([alice.account.address, relayer.account.address, USDC, deadline, v, r, s], as(relayer));
      await viem.assertions.revertWithCustomErrorWithArgs(
        token.write.permit([alice.account.address, relayer.account.address, USDC, deadline, v, r, s], as(relayer)),
        token,
        "InvalidPermitSignature",
        [alice.account.address],
      );
      expect(await token.read.nonces([alice.account.address])).to.equal(1n);
    });

    it("accepts the signature at exactly the deadline", async function () {
      const deadline = (await now()) + 60n;
      const signature = await signPermit(alice, {
        owner: alice.account.address,
        spender: relayer.account.address,
        value: USDC,
        nonce: 0n,
        deadline,
      });
      const { v, r, s } = vrs(signature);
      await networkHelpers.time.setNextBlockTimestamp(deadline);
      await stack.token.write.permit(
        [alice.account.address, relayer.account.address, USDC, deadline, v, r, s],
        as(relayer),
      );
      expect(await stack.token.read.allowance([alice.account.address, relayer.account.address])).to.equal(USDC);
    });

    it("reverts with PermitExpired after the deadline", async function () {
      const deadline = (await now()) + 60n;
      const signature = await signPermit(alice, {
        owner: alice.account.address,
        spender: relayer.account.address,
        value: USDC,
        nonce: 0n,
        deadline,
      });
      const { v, r, s } = vrs(signature);
      await networkHelpers.time.setNextBlockTimestamp(deadline + 1n);
      await viem.assertions.revertWithCustomErrorWithArgs(
        stack.token.write.permit(
          [alice.account.address, relayer.account.address, USDC, deadline, v, r, s],
          as(relayer),
        ),
        stack.token,
        "PermitExpired",
        [deadline],
      );
    });

    it("reverts with InvalidPermitSignature for another signer, another value or a future nonce", async function () {
      const { token } = stack;
      const deadline = (await now()) + 600n;
      const base = { owner: alice.account.address, spender: relayer.account.address, value: USDC, nonce: 0n, deadline };
      const cases: Array<{ signature: Hex; value: bigint }> = [
        { signature: await signPermit(bob, base), value: USDC },
        { signature: await signPermit(alice, base), value: 2n * USDC },
        { signature: await signPermit(alice, { ...base, nonce: 1n }), value: USDC },
      ];
      for (const { signature, value } of cases) {
        const { v, r, s } = vrs(signature);
        await viem.assertions.revertWithCustomErrorWithArgs(
          token.write.permit([alice.account.address, relayer.account.address, value, deadline, v, r, s], as(relayer)),
          token,
          "InvalidPermitSignature",
          [alice.account.address],
        );
      }
      expect(await token.read.nonces([alice.account.address])).to.equal(0n);
    });
  });

  describe("transferWithAuthorization", function () {
    describe("with a bytes signature", function () {
      it("moves the funds for any submitter and emits AuthorizationUsed and Transfer", async function () {
        const { token } = stack;
        const a = await authorizationFor();
        const signature = await signTokenAuthorization(stack, alice, "TransferWithAuthorization", a);
        const hash = await transferWith(a, signature);
        await viem.assertions.emitWithArgs(hash, token, "AuthorizationUsed", [a.from, a.nonce]);
        await viem.assertions.emitWithArgs(hash, token, "Transfer", [a.from, a.to, a.value]);
        expect(await token.read.balanceOf([bob.account.address])).to.equal(3n * USDC);
        expect(await token.read.balanceOf([relayer.account.address])).to.equal(0n);
        expect(await token.read.authorizationState([a.from, a.nonce])).to.equal(true);
      });
    });

    describe("with a (v, r, s) signature", function () {
      it("moves the funds and emits AuthorizationUsed", async function () {
        const { token } = stack;
        const a = await authorizationFor();
        const { v, r, s } = vrs(await signTokenAuthorization(stack, alice, "TransferWithAuthorization", a));
        await viem.assertions.emitWithArgs(
          token.write.transferWithAuthorization(
            [a.from, a.to, a.value, a.validAfter, a.validBefore, a.nonce, v, r, s],
            as(relayer),
          ),
          token,
          "AuthorizationUsed",
          [a.from, a.nonce],
        );
        expect(await token.read.balanceOf([bob.account.address])).to.equal(3n * USDC);
      });

      it("reverts with InvalidAuthorizationSignature for a flipped v", async function () {
        const a = await authorizationFor();
        const { v, r, s } = vrs(await signTokenAuthorization(stack, alice, "TransferWithAuthorization", a));
        await viem.assertions.revertWithCustomErrorWithArgs(
          stack.token.write.transferWithAuthorization(
            [a.from, a.to, a.value, a.validAfter, a.validBefore, a.nonce, v === 27 ? 28 : 27, r, s],
            as(relayer),
          ),
          stack.token,
          "InvalidAuthorizationSignature",
          [a.from],
        );
      });
    });

    describe("when the authorization is not yet valid", function () {
      it("reverts with AuthorizationNotYetValid at validAfter itself and succeeds one second later", async function () {
        const validAfter = (await now()) + 100n;
        const a = await authorizationFor({ validAfter });
        const signature = await signTokenAuthorization(stack, alice, "TransferWithAuthorization", a);
        await networkHelpers.time.setNextBlockTimestamp(validAfter);
        await viem.assertions.revertWithCustomErrorWithArgs(
          transferWith(a, signature),
          stack.token,
          "AuthorizationNotYetValid",
          [validAfter, validAfter],
        );
        await networkHelpers.time.setNextBlockTimestamp(validAfter + 1n);
        await transferWith(a, signature);
        expect(await stack.token.read.authorizationState([a.from, a.nonce])).to.equal(true);
      });
    });

    describe("when the authorization has expired", function () {
      it("reverts with AuthorizationExpired at validBefore itself", async function () {
        const a = await authorizationFor();
        const signature = await signTokenAuthorization(stack, alice, "TransferWithAuthorization", a);
        await networkHelpers.time.setNextBlockTimestamp(a.validBefore);
        await viem.assertions.revertWithCustomErrorWithArgs(
          transferWith(a, signature),
          stack.token,
          "AuthorizationExpired",
          [a.validBefore, a.validBefore],
        );
      });

      it("succeeds one second before validBefore", async function () {
        const a = await authorizationFor();
        const signature = await signTokenAuthorization(stack, alice, "TransferWithAuthorization", a);
        await networkHelpers.time.setNextBlockTimestamp(a.validBefore - 1n);
        await transferWith(a, signature);
        expect(await stack.token.read.balanceOf([bob.account.address])).to.equal(3n * USDC);
      });
    });

    describe("when the nonce was already used", function () {
      it("reverts with AuthorizationAlreadyUsed on replay", async function () {
        const a = await authorizationFor();
        const signature = await signTokenAuthorization(stack, alice, "TransferWithAuthorization", a);
        await transferWith(a, signature);
        await viem.assertions.revertWithCustomErrorWithArgs(
          transferWith(a, signature),
          stack.token,
          "AuthorizationAlreadyUsed",
          [a.from, a.nonce],
        );
        expect(await stack.token.read.balanceOf([bob.account.address])).to.equal(3n * USDC);
      });

      it("shares the nonce space with receiveWithAuthorization", async function () {
        const a = await authorizationFor();
        await transferWith(a, await signTokenAuthorization(stack, alice, "TransferWithAuthorization", a));
        const receiveSignature = await signTokenAuthorization(stack, alice, "ReceiveWithAuthorization", a);
        await viem.assertions.revertWithCustomErrorWithArgs(
          receiveWith(a, receiveSignature),
          stack.token,
          "AuthorizationAlreadyUsed",
          [a.from, a.nonce],
        );
      });

      it("keeps nonces per authorizer: another authorizer may use the same nonce", async function () {
        const { token, accounts } = stack;
        await token.write.mint([bob.account.address, USDC], as(accounts.admin));
        const a = await authorizationFor();
        await transferWith(a, await signTokenAuthorization(stack, alice, "TransferWithAuthorization", a));
        const fromBob = await authorizationFor({ from: bob.account.address, to: alice.account.address, value: USDC });
        await transferWith(fromBob, await signTokenAuthorization(stack, bob, "TransferWithAuthorization", fromBob));
        expect(await token.read.authorizationState([bob.account.address, a.nonce])).to.equal(true);
      });
    });

    describe("when the nonce was cancelled", function () {
      it("reverts with AuthorizationAlreadyUsed", async function () {
        const a = await authorizationFor();
        const signature = await signTokenAuthorization(stack, alice, "TransferWithAuthorization", a);
        await stack.token.write.cancelAuthorization(
          [a.from, a.nonce, await signCancel(alice, a.from, a.nonce)],
          as(relayer),
        );
        await viem.assertions.revertWithCustomErrorWithArgs(
          transferWith(a, signature),
          stack.token,
          "AuthorizationAlreadyUsed",
          [a.from, a.nonce],
        );
        expect(await stack.token.read.balanceOf([alice.account.address])).to.equal(100n * USDC);
      });
    });

    describe("when the signature does not match", function () {
      it("reverts with InvalidAuthorizationSignature for another signer", async function () {
        const a = await authorizationFor();
        await viem.assertions.revertWithCustomErrorWithArgs(
          transferWith(a, await signTokenAuthorization(stack, bob, "TransferWithAuthorization", a)),
          stack.token,
          "InvalidAuthorizationSignature",
          [a.from],
        );
      });

      it("reverts with InvalidAuthorizationSignature when the relayer raises the value", async function () {
        const a = await authorizationFor();
        const signature = await signTokenAuthorization(stack, alice, "TransferWithAuthorization", a);
        await viem.assertions.revertWithCustomErrorWithArgs(
          transferWith({ ...a, value: a.value + 1n }, signature),
          stack.token,
          "InvalidAuthorizationSignature",
          [a.from],
        );
      });

      it("reverts with InvalidAuthorizationSignature for a ReceiveWithAuthorization signature", async function () {
        const a = await authorizationFor();
        await viem.assertions.revertWithCustomErrorWithArgs(
          transferWith(a, await signTokenAuthorization(stack, alice, "ReceiveWithAuthorization", a)),
          stack.token,
          "InvalidAuthorizationSignature",
          [a.from],
        );
      });
    });

    it("reverts with ERC20InsufficientBalance beyond the balance, leaving the nonce unused", async function () {
      const a = await authorizationFor({ value: 101n * USDC });
      await viem.assertions.revertWithCustomErrorWithArgs(
        transferWith(a, await signTokenAuthorization(stack, alice, "TransferWithAuthorization", a)),
        stack.token,
        "ERC20InsufficientBalance",
        [a.from, 100n * USDC, 101n * USDC],
      );
      expect(await stack.token.read.authorizationState([a.from, a.nonce])).to.equal(false);
    });
  });

  describe("receiveWithAuthorization", function () {
    describe("with a bytes signature", function () {
      it("lets the payee pull the funds and emits AuthorizationUsed and Transfer", async function () {
        const { token } = stack;
        const a = await authorizationFor();
        const hash = await receiveWith(a, await signTokenAuthorization(stack, alice, "ReceiveWithAuthorization", a));
        await viem.assertions.emitWithArgs(hash, token, "AuthorizationUsed", [a.from, a.nonce]);
        await viem.assertions.emitWithArgs(hash, token, "Transfer", [a.from, a.to, a.value]);
        expect(await token.read.balanceOf([bob.account.address])).to.equal(3n * USDC);
      });
    });

    describe("with a (v, r, s) signature", function () {
      it("lets the payee pull the funds", async function () {
        const { token } = stack;
        const a = await authorizationFor();
        const { v, r, s } = vrs(await signTokenAuthorization(stack, alice, "ReceiveWithAuthorization", a));
        await viem.assertions.emitWithArgs(
          token.write.receiveWithAuthorization(
            [a.from, a.to, a.value, a.validAfter, a.validBefore, a.nonce, v, r, s],
            as(bob),
          ),
          token,
          "AuthorizationUsed",
          [a.from, a.nonce],
        );
        expect(await token.read.balanceOf([bob.account.address])).to.equal(3n * USDC);
      });

      it("reverts with CallerMustBePayee when someone else submits it", async function () {
        const a = await authorizationFor();
        const { v, r, s } = vrs(await signTokenAuthorization(stack, alice, "ReceiveWithAuthorization", a));
        await viem.assertions.revertWithCustomErrorWithArgs(
          stack.token.write.receiveWithAuthorization(
            [a.from, a.to, a.value, a.validAfter, a.validBefore, a.nonce, v, r, s],
            as(relayer),
          ),
          stack.token,
          "CallerMustBePayee",
          [relayer.account.address, a.to],
        );
      });
    });

    describe("when submitted by anyone but the payee", function () {
      it("reverts with CallerMustBePayee carrying the caller and the payee, and leaves the nonce unused", async function () {
        const a = await authorizationFor();
        const signature = await signTokenAuthorization(stack, alice, "ReceiveWithAuthorization", a);
        for (const who of [relayer, alice]) {
          await viem.assertions.revertWithCustomErrorWithArgs(
            receiveWith(a, signature, who),
            stack.token,
            "CallerMustBePayee",
            [who.account.address, a.to],
          );
        }
        expect(await stack.token.read.authorizationState([a.from, a.nonce])).to.equal(false);
      });
    });

    describe("when the authorization is out of its window or used", function () {
      it("reverts with AuthorizationNotYetValid before validAfter", async function () {
        const validAfter = (await now()) + 100n;
        const a = await authorizationFor({ validAfter });
        const signature = await signTokenAuthorization(stack, alice, "ReceiveWithAuthorization", a);
        const at = validAfter - 50n;
        await networkHelpers.time.setNextBlockTimestamp(at);
        await viem.assertions.revertWithCustomErrorWithArgs(
          receiveWith(a, signature),
          stack.token,
          "AuthorizationNotYetValid",
          [validAfter, at],
        );
      });

      it("reverts with AuthorizationExpired after validBefore", async function () {
        const a = await authorizationFor();
        const signature = await signTokenAuthorization(stack, alice, "ReceiveWithAuthorization", a);
        await networkHelpers.time.setNextBlockTimestamp(a.validBefore + 10n);
        await viem.assertions.revertWithCustomErrorWithArgs(
          receiveWith(a, signature),
          stack.token,
          "AuthorizationExpired",
          [a.validBefore, a.validBefore + 10n],
        );
      });

      it("reverts with AuthorizationAlreadyUsed on replay and after cancellation", async function () {
        const a = await authorizationFor();
        const signature = await signTokenAuthorization(stack, alice, "ReceiveWithAuthorization", a);
        await receiveWith(a, signature);
        await viem.assertions.revertWithCustomErrorWithArgs(
          receiveWith(a, signature),
          stack.token,
          "AuthorizationAlreadyUsed",
          [a.from, a.nonce],
        );

        const b = await authorizationFor({ nonce: keccak256(toHex("nonce-2")) });
        const bSignature = await signTokenAuthorization(stack, alice, "ReceiveWithAuthorization", b);
        await stack.token.write.cancelAuthorization(
          [b.from, b.nonce, await signCancel(alice, b.from, b.nonce)],
          as(alice),
        );
        await viem.assertions.revertWithCustomErrorWithArgs(
          receiveWith(b, bSignature),
          stack.token,
          "AuthorizationAlreadyUsed",
          [b.from, b.nonce],
        );
      });

      it("reverts with InvalidAuthorizationSignature for a TransferWithAuthorization signature", async function () {
        const a = await authorizationFor();
        await viem.assertions.revertWithCustomErrorWithArgs(
          receiveWith(a, await signTokenAuthorization(stack, alice, "TransferWithAuthorization", a)),
          stack.token,
          "InvalidAuthorizationSignature",
          [a.from],
        );
      });
    });
  });

  describe("cancelAuthorization", function () {
    describe("with a bytes signature", function () {
      it("marks the nonce used and emits AuthorizationCanceled, whoever submits", async function () {
        const { token } = stack;
        const nonce = keccak256(toHex("cancel-me"));
        await viem.assertions.emitWithArgs(
          token.write.cancelAuthorization(
            [alice.account.address, nonce, await signCancel(alice, alice.account.address, nonce)],
            as(relayer),
          ),
          token,
          "AuthorizationCanceled",
          [alice.account.address, nonce],
        );
        expect(await token.read.authorizationState([alice.account.address, nonce])).to.equal(true);
      });
    });

    describe("with a (v, r, s) signature", function () {
      it("marks the nonce used and emits AuthorizationCanceled", async function () {
        const { token } = stack;
        const nonce = keccak256(toHex("cancel-vrs"));
        const { v, r, s } = vrs(await signCancel(alice, alice.account.address, nonce));
        await viem.assertions.emitWithArgs(
          token.write.cancelAuthorization([alice.account.address, nonce, v, r, s], as(alice)),
          token,
          "AuthorizationCanceled",
          [alice.account.address, nonce],
        );
        expect(await token.read.authorizationState([alice.account.address, nonce])).to.equal(true);
      });

      it("reverts with InvalidAuthorizationSignature for another signer", async function () {
        const nonce = keccak256(toHex("cancel-vrs"));
        const { v, r, s } = vrs(await signCancel(bob, alice.account.address, nonce));
        await viem.assertions.revertWithCustomErrorWithArgs(
          stack.token.write.cancelAuthorization([alice.account.address, nonce, v, r, s], as(bob)),
          stack.token,
          "InvalidAuthorizationSignature",
          [alice.account.address],
        );
      });
    });

    it("reverts with AuthorizationAlreadyUsed for a nonce already used", async function () {
      const a = await authorizationFor();
      await transferWith(a, await signTokenAuthorization(stack, alice, "TransferWithAuthorization", a));
      await viem.assertions.revertWithCustomErrorWithArgs(
        stack.token.write.cancelAuthorization([a.from, a.nonce, await signCancel(alice, a.from, a.nonce)], as(alice)),
        stack.token,
        "AuthorizationAlreadyUsed",
        [a.from, a.nonce],
      );
    });

    it("reverts with AuthorizationAlreadyUsed for a nonce already cancelled", async function () {
      const nonce = keccak256(toHex("twice"));
      const signature = await signCancel(alice, alice.account.address, nonce);
      await stack.token.write.cancelAuthorization([alice.account.address, nonce, signature], as(alice));
      await viem.assertions.revertWithCustomErrorWithArgs(
        stack.token.write.cancelAuthorization([alice.account.address, nonce, signature], as(alice)),
        stack.token,
        "AuthorizationAlreadyUsed",
        [alice.account.address, nonce],
      );
    });

    it("reverts with InvalidAuthorizationSignature when a stranger tries to cancel someone's nonce", async function () {
      const nonce = keccak256(toHex("grief"));
      await viem.assertions.revertWithCustomErrorWithArgs(
        stack.token.write.cancelAuthorization(
          [alice.account.address, nonce, await signCancel(bob, alice.account.address, nonce)],
          as(bob),
        ),
        stack.token,
        "InvalidAuthorizationSignature",
        [alice.account.address],
      );
      expect(await stack.token.read.authorizationState([alice.account.address, nonce])).to.equal(false);
    });
  });

  describe("when the signer is an ERC-1271 contract wallet", function () {
    let wallet: Awaited<ReturnType<typeof deployWallet>>;

    async function deployWallet() {
      return viem.deployContract("RegistryERC1271Wallet", [stack.accounts.other.account.address]);
    }

    beforeEach(async function () {
      wallet = await deployWallet();
      await stack.token.write.mint([wallet.address, 10n * USDC], as(stack.accounts.admin));
    });

    it("transfers with an authorization its owner signed", async function () {
      const a = await authorizationFor({ from: wallet.address });
      const hash = await transferWith(
        a,
        await signTokenAuthorization(stack, stack.accounts.other, "TransferWithAuthorization", a),
      );
      await viem.assertions.emitWithArgs(hash, stack.token, "AuthorizationUsed", [wallet.address, a.nonce]);
      expect(await stack.token.read.balanceOf([wallet.address])).to.equal(7n * USDC);
    });

    it("lets the payee receive with an authorization its owner signed", async function () {
      const a = await authorizationFor({ from: wallet.address });
      await receiveWith(a, await signTokenAuthorization(stack, stack.accounts.other, "ReceiveWithAuthorization", a));
      expect(await stack.token.read.balanceOf([bob.account.address])).to.equal(3n * USDC);
    });

    it("cancels with its owner's signature", async function () {
      const nonce = keccak256(toHex("wallet-cancel"));
      await viem.assertions.emitWithArgs(
        stack.token.write.cancelAuthorization(
          [wallet.address, nonce, await signCancel(stack.accounts.other, wallet.address, nonce)],
          as(relayer),
        ),
        stack.token,
        "AuthorizationCanceled",
        [wallet.address, nonce],
      );
    });

    it("permits with its owner's signature packed as (v, r, s)", async function () {
      const deadline = (await now()) + 600n;
      const signature = await signPermit(stack.accounts.other, {
        owner: wallet.address,
        spender: relayer.account.address,
        value: USDC,
        nonce: 0n,
        deadline,
      });
      const { v, r, s } = vrs(signature);
      await stack.token.write.permit([wallet.address, relayer.account.address, USDC, deadline, v, r, s], as(relayer));
      expect(await stack.token.read.allowance([wallet.address, relayer.account.address])).to.equal(USDC);
      expect(await stack.token.read.nonces([wallet.address])).to.equal(1n);
    });

    it("reverts with InvalidAuthorizationSignature when the wallet rejects the signature", async function () {
      await wallet.write.setRejectAll([true], as(stack.accounts.other));
      const a = await authorizationFor({ from: wallet.address });
      await viem.assertions.revertWithCustomErrorWithArgs(
        transferWith(a, await signTokenAuthorization(stack, stack.accounts.other, "TransferWithAuthorization", a)),
        stack.token,
        "InvalidAuthorizationSignature",
        [wallet.address],
      );
    });

    it("reverts with InvalidPermitSignature when the wallet rejects the permit", async function () {
      await wallet.write.setRejectAll([true], as(stack.accounts.other));
      const deadline = (await now()) + 600n;
      const { v, r, s } = vrs(
        await signPermit(stack.accounts.other, {
          owner: wallet.address,
          spender: relayer.account.address,
          value: USDC,
          nonce: 0n,
          deadline,
        }),
      );
      await viem.assertions.revertWithCustomErrorWithArgs(
        stack.token.write.permit([wallet.address, relayer.account.address, USDC, deadline, v, r, s], as(relayer)),
        stack.token,
        "InvalidPermitSignature",
        [wallet.address],
      );
    });
  });
});
