import { expect } from "chai";
import { getAddress } from "viem";
import { resourceBoundNonce } from "../../../services/protocol/exactNonce.ts";
import type { ExactPayment, Signer, Stack } from "../fixtures.ts";
import {
  deployFundedEscrow,
  escrowHoldings,
  mined,
  mintTokens,
  networkHelpers,
  nonceOf,
  registerResource,
  signCancelAuthorization,
  signExactPayment,
  submitTransferToToken,
  USDC,
  viem,
} from "../fixtures.ts";

/**
 * Attacks on the `exact` path that used to move other people's money:
 * - a buyer whose authorization passed verify cancels it (or spends its nonce elsewhere) before the relayer settles;
 *   the escrow used to count whatever unaccounted stablecoin it held (another buyer's front-run transfer, stray
 *   tokens) as this payment: the attacker got the call for free, paid with the victim's funds, and the victim's own
 *   settlement then reverted with the funds stranded (there was no way to get them out);
 * - an intercepted `X-PAYMENT` for one resource was redeemable at any resource with the same price (its payTo is the
 *   escrow for every resource), so whoever saw the header could route the buyer's money to a resource of their own.
 */
describe("exact payment attacks: cancelled authorizations, stray funds, replay across resources", function () {
  async function setup() {
    const stack = await networkHelpers.loadFixture(deployFundedEscrow);
    const { buyer, other, relayer } = stack.accounts;
    await mintTokens(stack, buyer.account.address, USDC);
    await mintTokens(stack, other.account.address, USDC);
    return { ...stack, relayerAccount: { account: relayer.account } };
  }

  async function cancel(stack: Stack, signer: Signer, nonce: ExactPayment["nonce"]) {
    const signature = await signCancelAuthorization(stack, signer, nonce);
    await mined(
      stack,
      stack.token.write.cancelAuthorization([getAddress(signer.account.address), nonce, signature], {
        account: signer.account,
      }),
    );
  }

  it("a buyer who cancels an exact authorization after verify cannot be paid for out of another buyer's front-run transfer", async function () {
    const stack = await setup();
    const { buyer: victim, other: attacker } = stack.accounts;
    const victimPayment = await signExactPayment(stack, victim, {
      resourceId: stack.resourceId,
      value: 50_000n,
      nonce: nonceOf("victim"),
    });
    const attackerPayment = await signExactPayment(stack, attacker, {
      resourceId: stack.resourceId,
      value: 50_000n,
      nonce: nonceOf("attacker"),
    });
    // The victim's transfer lands in the escrow outside a settlement (anyone may submit an EIP-3009 transfer) ...
    await submitTransferToToken(stack, victimPayment, attacker);
    // ... and the attacker, whose payment was verified and whose call ran, cancels his own authorization.
    await cancel(stack, attacker, attackerPayment.nonce);

    await viem.assertions.revertWithCustomErrorWithArgs(
      stack.escrow.write.settleExact([attackerPayment], stack.relayerAccount),
      stack.escrow,
      "AuthorizationAlreadyUsed",
      [getAddress(attacker.account.address), attackerPayment.nonce],
    );
    expect(await stack.escrow.read.earningsOf([stack.accounts.payout.account.address])).to.equal(0n);
    expect(await stack.token.read.balanceOf([attacker.account.address])).to.equal(USDC);
  });

  it("a buyer cannot have an authorization spent on a transfer elsewhere paid out of stray funds in the escrow", async function () {
    const stack = await setup();
    const { other: attacker } = stack.accounts;
    await mintTokens(stack, stack.escrow.address, 50_000n); // someone's stray transfer
    const payment = await signExactPayment(stack, attacker, {
      resourceId: stack.resourceId,
      value: 50_000n,
      nonce: nonceOf("redirected"),
    });
    const elsewhere = await signExactPayment(stack, attacker, {
      resourceId: stack.resourceId,
      value: 1n,
      nonce: payment.nonce,
      to: attacker.account.address,
    });
    await mined(
      stack,
      stack.token.write.transferWithAuthorization(
        [
          elsewhere.from,
          attacker.account.address,
          elsewhere.value,
          elsewhere.validAfter,
          elsewhere.validBefore,
          elsewhere.nonce,
          elsewhere.signature,
        ],
        { account: attacker.account },
      ),
    );
    await viem.assertions.revertWithCustomErrorWithArgs(
      stack.escrow.write.settleExact([payment], stack.relayerAccount),
      stack.escrow,
      "AuthorizationAlreadyUsed",
      [getAddress(attacker.account.address), payment.nonce],
    );
    expect(await stack.escrow.read.earningsOf([stack.accounts.payout.account.address])).to.equal(0n);
  });

  describe("funds that reach the escrow outside a settlement", function () {
    it("a front-run buyer's funds are not stranded: the admin returns exactly the surplus to the buyer", async function () {
      const stack = await setup();
      const { buyer, admin } = stack.accounts;
      const payment = await signExactPayment(stack, buyer, { resourceId: stack.resourceId, value: 50_000n });
      await submitTransferToToken(stack, payment, stack.accounts.other);
      const before = await stack.token.read.balanceOf([buyer.account.address]);
      await viem.assertions.emitWithArgs(
        stack.escrow.write.recoverSurplus([buyer.account.address, 50_000n], { account: admin.account }),
        stack.escrow,
        "SurplusRecovered",
        [getAddress(buyer.account.address), 50_000n],
      );
      expect(await stack.token.read.balanceOf([buyer.account.address])).to.equal(before + 50_000n);
      const { held, owed } = await escrowHoldings(stack);
      expect(held).to.equal(owed);
    });

    it("the surplus sweep can never take what the escrow owes: SurplusTooLow(surplus, amount)", async function () {
      const stack = await setup();
      await mintTokens(stack, stack.escrow.address, 10n);
      await viem.assertions.revertWithCustomErrorWithArgs(
        stack.escrow.write.recoverSurplus([stack.accounts.other.account.address, 11n], {
          account: stack.accounts.admin.account,
        }),
        stack.escrow,
        "SurplusTooLow",
        [10n, 11n],
      );
    });

    it("only the admin may sweep the surplus", async function () {
      const stack = await setup();
      await mintTokens(stack, stack.escrow.address, 10n);
      await viem.assertions.revertWithCustomError(
        stack.escrow.write.recoverSurplus([stack.accounts.other.account.address, 10n], {
          account: stack.accounts.other.account,
        }),
        stack.escrow,
        "AccessControlUnauthorizedAccount",
      );
    });

    it("refuses the zero address", async function () {
      const stack = await setup();
      await viem.assertions.revertWithCustomError(
        stack.escrow.write.recoverSurplus(["0x0000000000000000000000000000000000000000", 0n], {
          account: stack.accounts.admin.account,
        }),
        stack.escrow,
        "ZeroAddress",
      );
    });
  });

  describe("replay across resources", function () {
    it("an intercepted exact payment whose nonce is bound to one resource cannot be redeemed at another", async function () {
      const stack = await setup();
      const { resourceId: attackersResource } = await registerResource(stack, {
        slug: "same-price",
        creator: stack.accounts.other,
      });
      const payment = await signExactPayment(stack, stack.accounts.buyer, {
        resourceId: stack.resourceId,
        value: 50_000n,
        nonce: resourceBoundNonce(stack.resourceId),
      });
      await viem.assertions.revertWithCustomErrorWithArgs(
        stack.escrow.write.settleExact([{ ...payment, resourceId: attackersResource }], stack.relayerAccount),
        stack.escrow,
        "NonceBoundToOtherResource",
        [payment.nonce, attackersResource],
      );
      await viem.assertions.emit(
        stack.escrow.write.settleExact([payment], stack.relayerAccount),
        stack.escrow,
        "BatchDebited",
      );
    });

    it("a stock client's random nonce still pays (it names no resource)", async function () {
      const stack = await setup();
      const payment = await signExactPayment(stack, stack.accounts.buyer, { resourceId: stack.resourceId, value: 7n });
      await viem.assertions.emit(
        stack.escrow.write.settleExact([payment], stack.relayerAccount),
        stack.escrow,
        "BatchDebited",
      );
    });
  });
});
