import { expect } from "chai";
import { domainSeparator, hashTypedData, maxUint128, maxUint256 } from "viem";
import { escrowAuthorizationSchema } from "../../../services/protocol/schemas/paymentPayload.ts";
import { debitTypedData, escrowDomain } from "../../../services/protocol/typedData.ts";
import {
  atNextBlock,
  deployFundedEscrow,
  escrowHoldings,
  expectDebited,
  mined,
  networkHelpers,
  nonceOf,
  registerResource,
  SPEND_LIMIT_DELAY,
  signDebit,
  signedDebit,
  spendLimitInForce,
  USDC,
  viem,
} from "../fixtures.ts";

/** PaymentEscrow.debit: one signed authorization, debited by the relayer and split in the same step. */
describe("PaymentEscrow.debit", function () {
  async function setup() {
    const stack = await networkHelpers.loadFixture(deployFundedEscrow);
    const { buyer, relayer, payout, treasury } = stack.accounts;
    return { ...stack, buyer, relayer, payout, treasury, relayerAccount: { account: relayer.account } };
  }
  type Setup = Awaited<ReturnType<typeof setup>>;

  describe("when the relayer submits a valid authorization", function () {
    it("debits the buyer, credits the creator's payout and the treasury, and logs it in BatchDebited", async function () {
      const stack = await setup();
      const { escrow, resourceId, buyer, payout, treasury, relayerAccount } = stack;
      const item = await signedDebit(stack, { resourceId, amount: 1_200n });

      await expectDebited({ ...stack, escrow }, escrow.write.debit([item], relayerAccount), [
        resourceId,
        buyer.account.address,
        item.authorization.nonce,
        1_200n,
        60n,
      ]);

      expect(await escrow.read.balanceOf([buyer.account.address])).to.equal(100n * USDC - 1_200n);
      expect(await escrow.read.earningsOf([payout.account.address])).to.equal(1_140n);
      expect(await escrow.read.earningsOf([treasury.account.address])).to.equal(60n);
      expect(await escrow.read.nonceUsed([buyer.account.address, item.authorization.nonce])).to.equal(true);
    });

    it("moves value between buyer balance and earnings without changing what the escrow owes", async function () {
      const stack = await setup();
      const before = await escrowHoldings(stack);
      await mined(
        stack,
        stack.escrow.write.debit(
          [await signedDebit(stack, { resourceId: stack.resourceId, amount: 777n })],
          stack.relayerAccount,
        ),
      );
      const after = await escrowHoldings(stack);
      expect(after).to.deep.equal(before);
      expect(after.held).to.equal(after.owed);
    });

    it("charges the metered amount below the cap and only that", async function () {
      const stack = await setup();
      const item = await signedDebit(stack, { resourceId: stack.resourceId, maxAmount: 50_000n, amount: 1_000n });
      await mined(stack, stack.escrow.write.debit([item], stack.relayerAccount));
      expect(await stack.escrow.read.balanceOf([stack.buyer.account.address])).to.equal(100n * USDC - 1_000n);
    });

    it("charges exactly the cap", async function () {
      const stack = await setup();
      const item = await signedDebit(stack, { resourceId: stack.resourceId, maxAmount: 50_000n, amount: 50_000n });
      await expectDebited(stack, stack.escrow.write.debit([item], stack.relayerAccount), [
        stack.resourceId,
        stack.buyer.account.address,
        item.authorization.nonce,
        50_000n,
        2_500n,
      ]);
    });

    it("debits the buyer's whole balance", async function () {
      const stack = await setup();
      const item = await signedDebit(stack, {
        resourceId: stack.resourceId,
        maxAmount: 100n * USDC,
        amount: 100n * USDC,
      });
      await mined(stack, stack.escrow.write.debit([item], stack.relayerAccount));
      expect(await stack.escrow.read.balanceOf([stack.buyer.account.address])).to.equal(0n);
    });

    it("credits the payout the registry names at debit time", async function () {
      const stack = await setup();
      const { registry, accounts } = stack;
      await mined(
        stack,
        registry.write.setPayout([stack.resourceId, accounts.other.account.address], {
          account: accounts.creator.account,
        }),
      );
      const item = await signedDebit(stack, { resourceId: stack.resourceId, amount: 1_000n });
      await expectDebited(stack, stack.escrow.write.debit([item], stack.relayerAccount), [
        stack.resourceId,
        stack.buyer.account.address,
        item.authorization.nonce,
        1_000n,
        50n,
      ]);
      expect(await stack.escrow.read.earningsOf([accounts.other.account.address])).to.equal(950n);
      expect(await stack.escrow.read.earningsOf([stack.payout.account.address])).to.equal(0n);
    });

    it("a DebitAuthorization signed with services/protocol typed data is accepted on chain", async function () {
      const stack = await setup();
      const { escrow, buyer } = stack;
      const now = await networkHelpers.time.latest();
      const wire = escrowAuthorizationSchema.parse({
        buyer: buyer.account.address.toLowerCase(),
        resourceId: stack.resourceId,
        maxAmount: "50000",
        validAfter: "0",
        validBefore: String(now + 3_600),
        nonce: nonceOf("protocol typed data"),
      });
      const typedData = debitTypedData(wire, escrow.address);
      const signature = await buyer.signTypedData(typedData);

      expect(await escrow.read.DOMAIN_SEPARATOR()).to.equal(domainSeparator({ domain: escrowDomain(escrow.address) }));
      expect(await escrow.read.hashDebitAuthorization([typedData.message])).to.equal(hashTypedData(typedData));
      await expectDebited(
        { ...stack, escrow },
        escrow.write.debit([{ authorization: typedData.message, amount: 1_200n, signature }], stack.relayerAccount),
        [stack.resourceId, buyer.account.address, wire.nonce, 1_200n, 60n],
      );
    });

    it("reports the EIP-712 domain the protocol signs under", async function () {
      const { escrow } = await setup();
      const [, name, version, chainId, verifyingContract] = await escrow.read.eip712Domain();
      const expected = escrowDomain(escrow.address);
      expect({
        name,
        version,
        chainId: Number(chainId),
        verifyingContract: verifyingContract.toLowerCase(),
      }).to.deep.equal({
        ...expected,
        verifyingContract: expected.verifyingContract.toLowerCase(),
      });
    });
  });

  describe("when the buyer is an ERC-1271 contract wallet", function () {
    async function walletSetup() {
      const stack = await setup();
      const wallet = await viem.deployContract("ERC1271Wallet", [stack.buyer.account.address]);
      await mined(
        stack,
        stack.token.write.approve([stack.escrow.address, 10n * USDC], { account: stack.buyer.account }),
      );
      await mined(
        stack,
        stack.token.write.mint([stack.buyer.account.address, 10n * USDC], { account: stack.accounts.admin.account }),
      );
      await mined(stack, stack.escrow.write.depositFor([wallet.address, 10n * USDC], { account: stack.buyer.account }));
      return { ...stack, wallet };
    }

    it("accepts the owner's signature through isValidSignature", async function () {
      const stack = await walletSetup();
      const item = await signedDebit(stack, {
        resourceId: stack.resourceId,
        buyer: stack.wallet.address,
        amount: 2_000n,
      });
      await expectDebited(stack, stack.escrow.write.debit([item], stack.relayerAccount), [
        stack.resourceId,
        stack.wallet.address,
        item.authorization.nonce,
        2_000n,
        100n,
      ]);
      expect(await stack.escrow.read.balanceOf([stack.wallet.address])).to.equal(10n * USDC - 2_000n);
    });

    it("shows the wallet an empty signature as sent: it stands for a hash the wallet approved", async function () {
      const stack = await walletSetup();
      const signed = await signedDebit(stack, {
        resourceId: stack.resourceId,
        buyer: stack.wallet.address,
        amount: 2_000n,
      });
      const item = { ...signed, signature: "0x" as const };
      await viem.assertions.revertWithCustomErrorWithArgs(
        stack.escrow.write.debit([item], stack.relayerAccount),
        stack.escrow,
        "InvalidSignature",
        [stack.wallet.address],
      );
      const digest = await stack.escrow.read.hashDebitAuthorization([item.authorization]);
      await mined(stack, stack.wallet.write.approve([digest], { account: stack.buyer.account }));
      await viem.assertions.emit(stack.escrow.write.debit([item], stack.relayerAccount), stack.escrow, "BatchDebited");
      expect(await stack.escrow.read.balanceOf([stack.wallet.address])).to.equal(10n * USDC - 2_000n);
    });

    it("rejects a signature from anyone but the owner with InvalidSignature(wallet)", async function () {
      const stack = await walletSetup();
      const item = await signedDebit(stack, {
        resourceId: stack.resourceId,
        buyer: stack.wallet.address,
        signer: stack.accounts.other,
      });
      await viem.assertions.revertWithCustomErrorWithArgs(
        stack.escrow.write.debit([item], stack.relayerAccount),
        stack.escrow,
        "InvalidSignature",
        [stack.wallet.address],
      );
    });
  });

  describe("when a check fails", function () {
    it("reverts AuthorizationNotYetValid(validAfter, now) before validAfter", async function () {
      const stack = await setup();
      const now = BigInt(await networkHelpers.time.latest());
      const item = await signedDebit(stack, {
        resourceId: stack.resourceId,
        validAfter: now + 100n,
        validBefore: now + 1_000n,
      });
      await atNextBlock(now + 99n, () =>
        viem.assertions.revertWithCustomErrorWithArgs(
          stack.escrow.write.debit([item], stack.relayerAccount),
          stack.escrow,
          "AuthorizationNotYetValid",
          [now + 100n, now + 99n],
        ),
      );
    });

    it("reverts AuthorizationExpired(validBefore, now) from validBefore on", async function () {
      const stack = await setup();
      const now = BigInt(await networkHelpers.time.latest());
      const item = await signedDebit(stack, { resourceId: stack.resourceId, validBefore: now + 100n });
      await atNextBlock(now + 100n, () =>
        viem.assertions.revertWithCustomErrorWithArgs(
          stack.escrow.write.debit([item], stack.relayerAccount),
          stack.escrow,
          "AuthorizationExpired",
          [now + 100n, now + 100n],
        ),
      );
    });

    it("reverts NonceAlreadyUsed(buyer, nonce) on a second debit of the same nonce", async function () {
      const stack = await setup();
      const item = await signedDebit(stack, { resourceId: stack.resourceId, amount: 10n });
      await mined(stack, stack.escrow.write.debit([item], stack.relayerAccount));
      await viem.assertions.revertWithCustomErrorWithArgs(
        stack.escrow.write.debit([item], stack.relayerAccount),
        stack.escrow,
        "NonceAlreadyUsed",
        [stack.buyer.account.address, item.authorization.nonce],
      );
    });

    it("reverts ZeroAmount when the amount is zero", async function () {
      const stack = await setup();
      const item = await signedDebit(stack, { resourceId: stack.resourceId, amount: 0n });
      await viem.assertions.revertWithCustomError(
        stack.escrow.write.debit([item], stack.relayerAccount),
        stack.escrow,
        "ZeroAmount",
      );
    });

    it("reverts AmountExceedsMax(amount, maxAmount) above the signed cap", async function () {
      const stack = await setup();
      const item = await signedDebit(stack, { resourceId: stack.resourceId, maxAmount: 5_000n, amount: 5_001n });
      await viem.assertions.revertWithCustomErrorWithArgs(
        stack.escrow.write.debit([item], stack.relayerAccount),
        stack.escrow,
        "AmountExceedsMax",
        [5_001n, 5_000n],
      );
    });

    it("reverts ResourceInactive(resourceId) for a resource that was never registered", async function () {
      const stack = await setup();
      const unknown = nonceOf("no such resource");
      const item = await signedDebit(stack, { resourceId: unknown, amount: 1n });
      await viem.assertions.revertWithCustomErrorWithArgs(
        stack.escrow.write.debit([item], stack.relayerAccount),
        stack.escrow,
        "ResourceInactive",
        [unknown],
      );
    });

    it("reverts ResourceInactive(resourceId) once the creator deactivated the resource", async function () {
      const stack = await setup();
      await mined(
        stack,
        stack.registry.write.deactivate([stack.resourceId], { account: stack.accounts.creator.account }),
      );
      const item = await signedDebit(stack, { resourceId: stack.resourceId, amount: 1n });
      await viem.assertions.revertWithCustomErrorWithArgs(
        stack.escrow.write.debit([item], stack.relayerAccount),
        stack.escrow,
        "ResourceInactive",
        [stack.resourceId],
      );
    });

    it("reverts InvalidSignature(buyer) when someone else signed", async function () {
      const stack = await setup();
      const item = await signedDebit(stack, { resourceId: stack.resourceId, signer: stack.accounts.other });
      await viem.assertions.revertWithCustomErrorWithArgs(
        stack.escrow.write.debit([item], stack.relayerAccount),
        stack.escrow,
        "InvalidSignature",
        [stack.buyer.account.address],
      );
    });

    it("reverts InvalidSignature(buyer) for a signature that is not 65 bytes", async function () {
      const stack = await setup();
      const item = await signedDebit(stack, { resourceId: stack.resourceId });
      const truncated = { ...item, signature: item.signature.slice(0, 130) as `0x${string}` };
      await viem.assertions.revertWithCustomErrorWithArgs(
        stack.escrow.write.debit([truncated], stack.relayerAccount),
        stack.escrow,
        "InvalidSignature",
        [stack.buyer.account.address],
      );
    });

    it("reverts InsufficientEscrow(buyer, balance, amount) above the buyer's balance", async function () {
      const stack = await setup();
      const item = await signedDebit(stack, {
        resourceId: stack.resourceId,
        maxAmount: maxUint256,
        amount: 100n * USDC + 1n,
      });
      await viem.assertions.revertWithCustomErrorWithArgs(
        stack.escrow.write.debit([item], stack.relayerAccount),
        stack.escrow,
        "InsufficientEscrow",
        [stack.buyer.account.address, 100n * USDC, 100n * USDC + 1n],
      );
    });

    it("spends neither the nonce nor the balance", async function () {
      const stack = await setup();
      const item = await signedDebit(stack, { resourceId: stack.resourceId, maxAmount: 10n, amount: 11n });
      await viem.assertions.revertWithCustomError(
        stack.escrow.write.debit([item], stack.relayerAccount),
        stack.escrow,
        "AmountExceedsMax",
      );
      expect(await stack.escrow.read.nonceUsed([stack.buyer.account.address, item.authorization.nonce])).to.equal(
        false,
      );
      expect(await stack.escrow.read.balanceOf([stack.buyer.account.address])).to.equal(100n * USDC);
    });

    it("reports the first failing check when several fail: time, nonce, amount, cap, resource, signature, balance", async function () {
      const stack = await setup();
      const now = BigInt(await networkHelpers.time.latest());
      const unknown = nonceOf("unknown resource");
      const everythingWrong = await signedDebit(stack, {
        resourceId: unknown,
        validBefore: now + 10n,
        maxAmount: 1n,
        amount: 2n,
        signer: stack.accounts.other,
      });
      await atNextBlock(now + 10n, () =>
        viem.assertions.revertWithCustomErrorWithArgs(
          stack.escrow.write.debit([everythingWrong], stack.relayerAccount),
          stack.escrow,
          "AuthorizationExpired",
          [now + 10n, now + 10n],
        ),
      );
      const inTime = await signedDebit(stack, {
        resourceId: unknown,
        maxAmount: 1n,
        amount: 2n,
        signer: stack.accounts.other,
      });
      await viem.assertions.revertWithCustomErrorWithArgs(
        stack.escrow.write.debit([inTime], stack.relayerAccount),
        stack.escrow,
        "AmountExceedsMax",
        [2n, 1n],
      );
      const inCap = { ...inTime, amount: 1n };
      await viem.assertions.revertWithCustomErrorWithArgs(
        stack.escrow.write.debit([inCap], stack.relayerAccount),
        stack.escrow,
        "ResourceInactive",
        [unknown],
      );
      const known = await signedDebit(stack, {
        resourceId: stack.resourceId,
        maxAmount: maxUint256,
        amount: 200n * USDC,
        signer: stack.accounts.other,
      });
      await viem.assertions.revertWithCustomErrorWithArgs(
        stack.escrow.write.debit([known], stack.relayerAccount),
        stack.escrow,
        "InvalidSignature",
        [stack.buyer.account.address],
      );
    });
  });

  describe("with a spend limit", function () {
    /** `buyer`'s pending spend-limit change as an object (all zero when none is pending). */
    async function pendingOf(stack: Setup, buyer = stack.buyer.account.address) {
      const state = await stack.escrow.read.buyerState([buyer, nonceOf("unused")]);
      return { limit: state.pendingSpendLimit, period: state.pendingPeriod, effectiveAt: state.pendingEffectiveAt };
    }

    /** `buyer`'s spend limit in force, as limit and period. */
    async function inForce(stack: Setup, buyer = stack.buyer.account.address) {
      const [limit, period] = await stack.escrow.read.spendLimitOf([buyer]);
      return { limit, period };
    }

    /** Sends `setSpendLimit(limit, period)` as the buyer and returns when a tightening may be applied. */
    async function requestAt(stack: Setup, limit: bigint, period: bigint): Promise<bigint> {
      const receipt = await mined(
        stack,
        stack.escrow.write.setSpendLimit([limit, period], { account: stack.buyer.account }),
      );
      const block = await stack.publicClient.getBlock({ blockNumber: receipt.blockNumber });
      return block.timestamp + SPEND_LIMIT_DELAY;
    }

    const none = { limit: 0n, period: 0n, effectiveAt: 0n };

    describe("when the change tightens", function () {
      it("requests a first limit, emits SpendLimitChangeRequested(buyer, limit, period, effectiveAt) and keeps none in force", async function () {
        const stack = await setup();
        const effectiveAt = BigInt(await networkHelpers.time.latest()) + 1n + SPEND_LIMIT_DELAY;
        await networkHelpers.time.setNextBlockTimestamp(effectiveAt - SPEND_LIMIT_DELAY);
        await viem.assertions.emitWithArgs(
          stack.escrow.write.setSpendLimit([5_000n, 3_600n], { account: stack.buyer.account }),
          stack.escrow,
          "SpendLimitChangeRequested",
          [stack.buyer.account.address, 5_000n, 3_600n, effectiveAt],
        );
        expect(await pendingOf(stack)).to.deep.equal({ limit: 5_000n, period: 3_600n, effectiveAt });
        const [limit, period, windowStart, spent] = await stack.escrow.read.spendLimitOf([stack.buyer.account.address]);
        expect({ limit, period, windowStart, spent }).to.deep.equal({
          limit: 0n,
          period: 0n,
          windowStart: 0n,
          spent: 0n,
        });
      });

      for (const [what, limit, period] of [
        ["a lower limit", 4_999n, 3_600n],
        ["a longer period", 5_000n, 3_601n],
        ["a higher limit over a longer period", 10_000n, 7_200n],
      ] as const) {
        it(`requests ${what} and keeps the current limit in force`, async function () {
          const stack = await setup();
          await spendLimitInForce(stack, stack.buyer, 5_000n, 3_600n);
          const effectiveAt = await requestAt(stack, limit, period);
          expect(await pendingOf(stack)).to.deep.equal({ limit, period, effectiveAt });
          expect(await inForce(stack)).to.deep.equal({ limit: 5_000n, period: 3_600n });
        });
      }

      it("clamps a limit above uint128 and a period above uint64, and reports the stored values", async function () {
        const stack = await setup();
        await viem.assertions.emit(
          stack.escrow.write.setSpendLimit([maxUint256, maxUint256], { account: stack.buyer.account }),
          stack.escrow,
          "SpendLimitChangeRequested",
        );
        const { limit, period } = await pendingOf(stack);
        expect({ limit, period }).to.deep.equal({ limit: maxUint128, period: 2n ** 64n - 1n });
      });

      it("lets anyone apply the change once due: emits SpendLimitSet(buyer, limit, period) and clears it", async function () {
        const stack = await setup();
        const effectiveAt = await requestAt(stack, 5_000n, 3_600n);
        await atNextBlock(effectiveAt, () =>
          viem.assertions.emitWithArgs(
            stack.escrow.write.applySpendLimit([stack.buyer.account.address], {
              account: stack.accounts.other.account,
            }),
            stack.escrow,
            "SpendLimitSet",
            [stack.buyer.account.address, 5_000n, 3_600n],
          ),
        );
        expect(await inForce(stack)).to.deep.equal({ limit: 5_000n, period: 3_600n });
        expect(await pendingOf(stack)).to.deep.equal(none);
      });

      it("reverts SpendLimitChangeNotDue(buyer, effectiveAt) one second before the change is due", async function () {
        const stack = await setup();
        const effectiveAt = await requestAt(stack, 5_000n, 3_600n);
        await atNextBlock(effectiveAt - 1n, () =>
          viem.assertions.revertWithCustomErrorWithArgs(
            stack.escrow.write.applySpendLimit([stack.buyer.account.address], { account: stack.buyer.account }),
            stack.escrow,
            "SpendLimitChangeNotDue",
            [stack.buyer.account.address, effectiveAt],
          ),
        );
        expect(await inForce(stack)).to.deep.equal({ limit: 0n, period: 0n });
      });

      it("reverts SpendLimitChangeNotDue(buyer, 0) when no change is pending", async function () {
        const stack = await setup();
        await viem.assertions.revertWithCustomErrorWithArgs(
          stack.escrow.write.applySpendLimit([stack.buyer.account.address], { account: stack.buyer.account }),
          stack.escrow,
          "SpendLimitChangeNotDue",
          [stack.buyer.account.address, 0n],
        );
      });

      it("replaces a pending change with a later request, whose delay starts again", async function () {
        const stack = await setup();
        const first = await requestAt(stack, 5_000n, 3_600n);
        await networkHelpers.time.increase(3_600);
        const second = await requestAt(stack, 2_000n, 7_200n);
        expect(second - first).to.equal(3_601n);
        expect(await pendingOf(stack)).to.deep.equal({ limit: 2_000n, period: 7_200n, effectiveAt: second });
        await atNextBlock(first, () =>
          viem.assertions.revertWithCustomErrorWithArgs(
            stack.escrow.write.applySpendLimit([stack.buyer.account.address], { account: stack.buyer.account }),
            stack.escrow,
            "SpendLimitChangeNotDue",
            [stack.buyer.account.address, second],
          ),
        );
        await atNextBlock(second, () =>
          mined(
            stack,
            stack.escrow.write.applySpendLimit([stack.buyer.account.address], { account: stack.buyer.account }),
          ),
        );
        expect(await inForce(stack)).to.deep.equal({ limit: 2_000n, period: 7_200n });
      });

      it("keeps debiting under the current limit while a due change is not applied", async function () {
        const stack = await setup();
        await spendLimitInForce(stack, stack.buyer, 5_000n, 3_600n);
        await mined(stack, stack.escrow.write.setSpendLimit([1_000n, 3_600n], { account: stack.buyer.account }));
        await networkHelpers.time.increase(Number(SPEND_LIMIT_DELAY));
        const item = await signedDebit(stack, { resourceId: stack.resourceId, amount: 5_000n });
        await viem.assertions.emit(
          stack.escrow.write.debit([item], stack.relayerAccount),
          stack.escrow,
          "BatchDebited",
        );
      });
    });

    describe("when the change only loosens", function () {
      for (const [what, limit, period] of [
        ["a higher limit", 5_001n, 3_600n],
        ["the same limit over a shorter period", 5_000n, 3_599n],
        ["the same limit and period", 5_000n, 3_600n],
        ["no limit", 0n, 0n],
      ] as const) {
        it(`puts ${what} in force at once and emits SpendLimitSet(buyer, limit, period)`, async function () {
          const stack = await setup();
          await spendLimitInForce(stack, stack.buyer, 5_000n, 3_600n);
          await viem.assertions.emitWithArgs(
            stack.escrow.write.setSpendLimit([limit, period], { account: stack.buyer.account }),
            stack.escrow,
            "SpendLimitSet",
            [stack.buyer.account.address, limit, period],
          );
          expect(await inForce(stack)).to.deep.equal({ limit, period });
        });
      }

      it("cancels a pending change", async function () {
        const stack = await setup();
        await spendLimitInForce(stack, stack.buyer, 5_000n, 3_600n);
        await requestAt(stack, 1_000n, 3_600n);
        await mined(stack, stack.escrow.write.setSpendLimit([10_000n, 3_600n], { account: stack.buyer.account }));
        expect(await pendingOf(stack)).to.deep.equal(none);
        await networkHelpers.time.increase(Number(SPEND_LIMIT_DELAY));
        await viem.assertions.revertWithCustomErrorWithArgs(
          stack.escrow.write.applySpendLimit([stack.buyer.account.address], { account: stack.buyer.account }),
          stack.escrow,
          "SpendLimitChangeNotDue",
          [stack.buyer.account.address, 0n],
        );
        expect(await inForce(stack)).to.deep.equal({ limit: 10_000n, period: 3_600n });
      });

      it("puts no limit in force at once when none was set", async function () {
        const stack = await setup();
        await viem.assertions.emitWithArgs(
          stack.escrow.write.setSpendLimit([0n, 0n], { account: stack.buyer.account }),
          stack.escrow,
          "SpendLimitSet",
          [stack.buyer.account.address, 0n, 0n],
        );
      });
    });

    it("reverts ZeroAmount for a limit without a period", async function () {
      const stack = await setup();
      await viem.assertions.revertWithCustomError(
        stack.escrow.write.setSpendLimit([1n, 0n], { account: stack.buyer.account }),
        stack.escrow,
        "ZeroAmount",
      );
    });

    it("reverts SpendLimitExceeded(buyer, limit, spent, amount) past the limit within a period", async function () {
      const stack = await setup();
      await spendLimitInForce(stack, stack.buyer, 5_000n, 3_600n);
      await mined(
        stack,
        stack.escrow.write.debit(
          [await signedDebit(stack, { resourceId: stack.resourceId, nonce: nonceOf(1), amount: 3_000n })],
          stack.relayerAccount,
        ),
      );
      const over = await signedDebit(stack, { resourceId: stack.resourceId, nonce: nonceOf(2), amount: 2_001n });
      await viem.assertions.revertWithCustomErrorWithArgs(
        stack.escrow.write.debit([over], stack.relayerAccount),
        stack.escrow,
        "SpendLimitExceeded",
        [stack.buyer.account.address, 5_000n, 3_000n, 2_001n],
      );
      const upTo = await signedDebit(stack, { resourceId: stack.resourceId, nonce: nonceOf(3), amount: 2_000n });
      await mined(stack, stack.escrow.write.debit([upTo], stack.relayerAccount));
      const [, , , spent] = await stack.escrow.read.spendLimitOf([stack.buyer.account.address]);
      expect(spent).to.equal(5_000n);
    });

    it("starts a new window once the period has passed", async function () {
      const stack = await setup();
      await spendLimitInForce(stack, stack.buyer, 5_000n, 3_600n);
      const first = await mined(
        stack,
        stack.escrow.write.debit(
          [await signedDebit(stack, { resourceId: stack.resourceId, nonce: nonceOf(1), amount: 5_000n })],
          stack.relayerAccount,
        ),
      );
      const firstAt = (await stack.publicClient.getBlock({ blockNumber: first.blockNumber })).timestamp;
      const next = await signedDebit(stack, {
        resourceId: stack.resourceId,
        nonce: nonceOf(2),
        amount: 1n,
        validBefore: firstAt + 10_000n,
      });
      await atNextBlock(firstAt + 3_599n, () =>
        viem.assertions.revertWithCustomErrorWithArgs(
          stack.escrow.write.debit([next], stack.relayerAccount),
          stack.escrow,
          "SpendLimitExceeded",
          [stack.buyer.account.address, 5_000n, 5_000n, 1n],
        ),
      );
      await atNextBlock(firstAt + 3_600n, () => mined(stack, stack.escrow.write.debit([next], stack.relayerAccount)));
      const [, , windowStart, spent] = await stack.escrow.read.spendLimitOf([stack.buyer.account.address]);
      expect({ windowStart, spent }).to.deep.equal({ windowStart: firstAt + 3_600n, spent: 1n });
    });

    it("stops limiting once the buyer sets the limit to zero", async function () {
      const stack = await setup();
      await spendLimitInForce(stack, stack.buyer, 1n, 3_600n);
      await mined(stack, stack.escrow.write.setSpendLimit([0n, 0n], { account: stack.buyer.account }));
      await mined(
        stack,
        stack.escrow.write.debit(
          [await signedDebit(stack, { resourceId: stack.resourceId, amount: 50_000n })],
          stack.relayerAccount,
        ),
      );
      expect(await stack.escrow.read.balanceOf([stack.buyer.account.address])).to.equal(100n * USDC - 50_000n);
    });

    it("limits each buyer separately", async function () {
      const stack = await setup();
      await spendLimitInForce(stack, stack.accounts.other, 1n, 3_600n);
      await mined(
        stack,
        stack.escrow.write.debit(
          [await signedDebit(stack, { resourceId: stack.resourceId, amount: 50_000n })],
          stack.relayerAccount,
        ),
      );
      expect(await stack.escrow.read.balanceOf([stack.buyer.account.address])).to.equal(100n * USDC - 50_000n);
    });
  });

  describe("buyerState", function () {
    it("returns balance, pending withdrawal, spend limit window, pending spend-limit change and nonce state in one call", async function () {
      const stack = await setup();
      const { escrow, buyer } = stack;
      const nonce = nonceOf("state");
      const { atBlock: freshBlock, ...fresh } = await escrow.read.buyerState([buyer.account.address, nonce]);
      expect(fresh).to.deep.equal({
        balance: 100n * USDC,
        pendingWithdrawal: 0n,
        spendLimit: 0n,
        period: 0n,
        windowStart: 0n,
        spentInWindow: 0n,
        pendingSpendLimit: 0n,
        pendingPeriod: 0n,
        pendingEffectiveAt: 0n,
        nonceSpent: false,
      });

      await spendLimitInForce(stack, buyer, 5_000n, 3_600n);
      const item = await signedDebit(stack, { resourceId: stack.resourceId, nonce, amount: 1_000n });
      const debited = await mined(stack, escrow.write.debit([item], stack.relayerAccount));
      await mined(stack, escrow.write.requestWithdrawal([2n * USDC], { account: buyer.account }));
      await mined(stack, escrow.write.setSpendLimit([1_000n, 7_200n], { account: buyer.account }));
      const state = await escrow.read.buyerState([buyer.account.address, nonce]);
      const { atBlock, ...rest } = state;
      const debitedAt = (await stack.publicClient.getBlock({ blockNumber: debited.blockNumber })).timestamp;
      expect(rest).to.deep.equal({
        balance: 100n * USDC - 1_000n,
        pendingWithdrawal: 2n * USDC,
        spendLimit: 5_000n,
        period: 3_600n,
        windowStart: debitedAt,
        spentInWindow: 1_000n,
        pendingSpendLimit: 1_000n,
        pendingPeriod: 7_200n,
        pendingEffectiveAt: BigInt(await networkHelpers.time.latest()) + SPEND_LIMIT_DELAY,
        nonceSpent: true,
      });
      // Six blocks were mined since the first read; the state names the block it reflects.
      expect(atBlock - freshBlock).to.equal(6n);
      expect(atBlock >= (await stack.publicClient.getBlockNumber())).to.equal(true);
    });
  });

  describe("with two resources", function () {
    it("credits each resource's payout from the same buyer", async function () {
      const stack = await setup();
      const second = await registerResource(stack, { slug: "news", payout: stack.accounts.other.account.address });
      const a = await signedDebit(stack, { resourceId: stack.resourceId, nonce: nonceOf("a"), amount: 1_000n });
      const b = await signedDebit(stack, { resourceId: second.resourceId, nonce: nonceOf("b"), amount: 2_000n });
      await mined(stack, stack.escrow.write.debit([a], stack.relayerAccount));
      await mined(stack, stack.escrow.write.debit([b], stack.relayerAccount));
      expect(await stack.escrow.read.earningsOf([stack.payout.account.address])).to.equal(950n);
      expect(await stack.escrow.read.earningsOf([stack.accounts.other.account.address])).to.equal(1_900n);
      expect(await stack.escrow.read.earningsOf([stack.treasury.account.address])).to.equal(150n);
    });
  });

  describe("signDebit", function () {
    it("signs the digest hashDebitAuthorization returns", async function () {
      const stack = await setup();
      const item = await signedDebit(stack, { resourceId: stack.resourceId });
      const again = await signDebit(stack.escrow.address, stack.buyer, item.authorization);
      expect(again).to.equal(item.signature);
    });
  });
});
