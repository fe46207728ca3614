import { expect } from "chai";
import type { Hex } from "viem";
import { encodeErrorResult, getAddress, parseEventLogs } from "viem";
import { compactDebit } from "../../../services/facilitator/relayer/compactDebit.ts";
import type { Debit } from "../fixtures.ts";
import {
  atNextBlock,
  debitLogs,
  deployFundedEscrow,
  escrowHoldings,
  expectDebited,
  fundBuyer,
  mined,
  networkHelpers,
  nonceOf,
  registerResource,
  signedDebit,
  spendLimitInForce,
  USDC,
  viem,
} from "../fixtures.ts";

/** An item in the compact encoding; every item of these tests has one. */
function compact(item: Debit) {
  const encoded = compactDebit(item);
  if (!encoded) throw new Error(`debit ${item.authorization.nonce} has no compact encoding`);
  return encoded;
}

/**
 * PaymentEscrow.debitBatch and debitBatchCompact: many debits in one transaction; a failing item is skipped and
 * reported, never the batch. Every test runs in both encodings, which must behave alike.
 */
for (const encoding of ["debitBatch", "debitBatchCompact"] as const)
  describe(`PaymentEscrow.${encoding}`, function () {
    async function setup() {
      const stack = await networkHelpers.loadFixture(deployFundedEscrow);
      const { buyer, relayer, payout, treasury } = stack.accounts;
      return { ...stack, buyer, payout, treasury, relayerAccount: { account: relayer.account } };
    }
    type Setup = Awaited<ReturnType<typeof setup>>;

    function reason(stack: Setup, errorName: string, args: readonly unknown[] = []): Hex {
      return encodeErrorResult({ abi: stack.escrow.abi, errorName, args } as Parameters<typeof encodeErrorResult>[0]);
    }

    /** Sends `items` as one batch in this suite's encoding. */
    function sendBatch(stack: Setup, items: Debit[]): Promise<Hex> {
      return encoding === "debitBatch"
        ? stack.escrow.write.debitBatch([items], stack.relayerAccount)
        : stack.escrow.write.debitBatchCompact([items.map(compact)], stack.relayerAccount);
    }

    async function batchLogs(stack: Setup, items: Debit[]) {
      const from = { account: stack.accounts.relayer.account.address };
      const settled =
        encoding === "debitBatch"
          ? (await stack.escrow.simulate.debitBatch([items], from)).result
          : (await stack.escrow.simulate.debitBatchCompact([items.map(compact)], from)).result;
      const receipt = await mined(stack, sendBatch(stack, items));
      const debited = debitLogs(stack.escrow, receipt.logs);
      const skipped = parseEventLogs({ abi: stack.escrow.abi, eventName: "DebitSkipped", logs: receipt.logs });
      return { settled, debited, skipped, receipt };
    }

    describe("when every item is valid", function () {
      it("debits each item, logs each item in one BatchDebited and returns how many settled", async function () {
        const stack = await setup();
        const amounts = [1_000n, 2_000n, 3_000n];
        const items = await Promise.all(
          amounts.map((amount, i) =>
            signedDebit(stack, { resourceId: stack.resourceId, nonce: nonceOf(`batch ${i}`), amount }),
          ),
        );
        const { settled, debited, skipped } = await batchLogs(stack, items);

        expect(settled).to.equal(3n);
        expect(skipped).to.have.length(0);
        expect(debited.map((log) => log.args)).to.deep.equal(
          items.map((item) => ({
            resourceId: stack.resourceId,
            buyer: getAddress(stack.buyer.account.address),
            nonce: item.authorization.nonce,
            amount: item.amount,
            treasuryAmount: (item.amount * 500n) / 10_000n,
          })),
        );
        expect(await stack.escrow.read.balanceOf([stack.buyer.account.address])).to.equal(100n * USDC - 6_000n);
        expect(await stack.escrow.read.earningsOf([stack.payout.account.address])).to.equal(5_700n);
        expect(await stack.escrow.read.earningsOf([stack.treasury.account.address])).to.equal(300n);
      });

      it("floors the treasury share per item, as each BatchDebited entry reports it", async function () {
        const stack = await setup();
        const items = await Promise.all(
          [19n, 19n].map((amount, i) =>
            signedDebit(stack, { resourceId: stack.resourceId, nonce: nonceOf(`small ${i}`), amount }),
          ),
        );
        await expectDebited(stack, sendBatch(stack, items), [
          stack.resourceId,
          stack.buyer.account.address,
          items[1]!.authorization.nonce,
          19n,
          0n,
        ]);
        expect(await stack.escrow.read.earningsOf([stack.treasury.account.address])).to.equal(0n);
        expect(await stack.escrow.read.earningsOf([stack.payout.account.address])).to.equal(38n);
      });

      it("serves several buyers and resources in one batch", async function () {
        const stack = await setup();
        const { other, creator } = stack.accounts;
        await fundBuyer(stack, other, 10n * USDC);
        const news = await registerResource(stack, { slug: "news", payout: creator.account.address });
        const items = [
          await signedDebit(stack, { resourceId: stack.resourceId, nonce: nonceOf("b1"), amount: 1_000n }),
          await signedDebit(stack, {
            resourceId: news.resourceId,
            buyer: other.account.address,
            signer: other,
            nonce: nonceOf("o1"),
            amount: 4_000n,
          }),
        ];
        const { settled } = await batchLogs(stack, items);
        expect(settled).to.equal(2n);
        expect(await stack.escrow.read.earningsOf([stack.payout.account.address])).to.equal(950n);
        expect(await stack.escrow.read.earningsOf([creator.account.address])).to.equal(3_800n);
        expect(await stack.escrow.read.earningsOf([stack.treasury.account.address])).to.equal(250n);
        expect(await stack.escrow.read.balanceOf([other.account.address])).to.equal(10n * USDC - 4_000n);
        const { held, owed } = await escrowHoldings(stack);
        expect(held).to.equal(owed);
      });

      it("credits every share when resources interleave, repeat, share a payout or fail mid-run", async function () {
        const stack = await setup();
        const { creator } = stack.accounts;
        const news = await registerResource(stack, { slug: "news", payout: creator.account.address });
        const alsoPayout = await registerResource(stack, { slug: "same payout", payout: stack.payout.account.address });
        const unknown = nonceOf("no such resource");
        const plan: Array<[Hex, bigint]> = [
          [unknown, 7n], // the first item's resource is unknown: the first run is inactive
          [stack.resourceId, 1_000n],
          [stack.resourceId, 2_000n],
          [news.resourceId, 4_000n],
          [stack.resourceId, 3_000n],
          [alsoPayout.resourceId, 5_000n],
          [alsoPayout.resourceId, 0n], // skipped mid-run (ZeroAmount): the run's other items still count
          [alsoPayout.resourceId, 6_000n],
          [news.resourceId, 20_000n],
        ];
        const items = await Promise.all(
          plan.map(([resourceId, amount], i) => signedDebit(stack, { resourceId, nonce: nonceOf(`run ${i}`), amount })),
        );
        const { settled, debited, skipped } = await batchLogs(stack, items);

        expect({ settled, skipped: skipped.map((log) => log.args.nonce) }).to.deep.equal({
          settled: 7n,
          skipped: [items[0]!.authorization.nonce, items[6]!.authorization.nonce],
        });
        const creatorShare = (amount: bigint) => amount - (amount * 500n) / 10_000n;
        // BatchDebited names the resource; the registry names its payout.
        const payoutOf = new Map<Hex, Hex>([
          [stack.resourceId, stack.payout.account.address],
          [alsoPayout.resourceId, stack.payout.account.address],
          [news.resourceId, creator.account.address],
        ]);
        const sharesTo = (payout: Hex) =>
          debited
            .filter((log) => payoutOf.get(log.args.resourceId) === payout)
            .reduce((sum, log) => sum + log.args.amount - log.args.treasuryAmount, 0n);
        expect(await stack.escrow.read.earningsOf([stack.payout.account.address])).to.equal(
          [1_000n, 2_000n, 3_000n, 5_000n, 6_000n].reduce((sum, amount) => sum + creatorShare(amount), 0n),
        );
        expect(await stack.escrow.read.earningsOf([stack.payout.account.address])).to.equal(
          sharesTo(stack.payout.account.address),
        );
        expect(await stack.escrow.read.earningsOf([creator.account.address])).to.equal(
          creatorShare(4_000n) + creatorShare(20_000n),
        );
        expect(await stack.escrow.read.earningsOf([stack.treasury.account.address])).to.equal(
          debited.reduce((sum, log) => sum + log.args.treasuryAmount, 0n),
        );
        const { held, owed } = await escrowHoldings(stack);
        expect(held).to.equal(owed);
      });

      it("returns zero and emits nothing for an empty batch", async function () {
        const stack = await setup();
        const { settled, debited, skipped } = await batchLogs(stack, []);
        expect({ settled, debited: debited.length, skipped: skipped.length }).to.deep.equal({
          settled: 0n,
          debited: 0,
          skipped: 0,
        });
      });
    });

    describe("when some items fail", function () {
      it("skips each failing item with DebitSkipped(resourceId, buyer, nonce, reason) and settles the rest", async function () {
        const stack = await setup();
        const good = await signedDebit(stack, { resourceId: stack.resourceId, nonce: nonceOf("good"), amount: 1_000n });
        const overCap = await signedDebit(stack, {
          resourceId: stack.resourceId,
          nonce: nonceOf("over"),
          maxAmount: 10n,
          amount: 11n,
        });
        const alsoGood = await signedDebit(stack, {
          resourceId: stack.resourceId,
          nonce: nonceOf("also good"),
          amount: 2_000n,
        });

        const promise = sendBatch(stack, [good, overCap, alsoGood]);
        await viem.assertions.emitWithArgs(promise, stack.escrow, "DebitSkipped", [
          stack.resourceId,
          stack.buyer.account.address,
          overCap.authorization.nonce,
          reason(stack, "AmountExceedsMax", [11n, 10n]),
        ]);
        expect(await stack.escrow.read.balanceOf([stack.buyer.account.address])).to.equal(100n * USDC - 3_000n);
        expect(await stack.escrow.read.nonceUsed([stack.buyer.account.address, overCap.authorization.nonce])).to.equal(
          false,
        );
      });

      it("reports every kind of failure with the custom error debit would revert with", async function () {
        const stack = await setup();
        const { buyer, other } = stack.accounts;
        const now = BigInt(await networkHelpers.time.latest());
        const at = now + 100n;
        const unknown = nonceOf("unknown resource");
        const spent = await signedDebit(stack, {
          resourceId: stack.resourceId,
          nonce: nonceOf("spent"),
          amount: 1n,
          validBefore: at + 10n,
        });
        // Mined at a pinned time: after a fixture's snapshot is restored, the chain's latest block can be minutes
        // behind the clock its next unpinned block takes (a slow run, or the machine's clock stepping), which once
        // put this debit past its own window.
        await atNextBlock(now + 1n, () => mined(stack, stack.escrow.write.debit([spent], stack.relayerAccount)));

        const cases: Array<[Debit, Hex]> = [
          [
            await signedDebit(stack, {
              resourceId: stack.resourceId,
              nonce: nonceOf("early"),
              validAfter: at + 1n,
              validBefore: at + 10n,
            }),
            reason(stack, "AuthorizationNotYetValid", [at + 1n, at]),
          ],
          [
            await signedDebit(stack, { resourceId: stack.resourceId, nonce: nonceOf("late"), validBefore: at }),
            reason(stack, "AuthorizationExpired", [at, at]),
          ],
          [spent, reason(stack, "NonceAlreadyUsed", [buyer.account.address, spent.authorization.nonce])],
          [
            await signedDebit(stack, {
              resourceId: stack.resourceId,
              nonce: nonceOf("zero"),
              amount: 0n,
              validBefore: at + 10n,
            }),
            reason(stack, "ZeroAmount"),
          ],
          [
            await signedDebit(stack, {
              resourceId: stack.resourceId,
              nonce: nonceOf("cap"),
              maxAmount: 5n,
              amount: 6n,
              validBefore: at + 10n,
            }),
            reason(stack, "AmountExceedsMax", [6n, 5n]),
          ],
          [
            await signedDebit(stack, { resourceId: unknown, nonce: nonceOf("unknown"), validBefore: at + 10n }),
            reason(stack, "ResourceInactive", [unknown]),
          ],
          [
            await signedDebit(stack, {
              resourceId: stack.resourceId,
              nonce: nonceOf("forged"),
              signer: other,
              validBefore: at + 10n,
            }),
            reason(stack, "InvalidSignature", [buyer.account.address]),
          ],
          [
            await signedDebit(stack, {
              resourceId: stack.resourceId,
              nonce: nonceOf("too much"),
              maxAmount: 100n * USDC,
              amount: 100n * USDC,
              validBefore: at + 10n,
            }),
            reason(stack, "InsufficientEscrow", [buyer.account.address, 100n * USDC - 1n, 100n * USDC]),
          ],
        ];
        const items = cases.map(([item]) => item);
        const receipt = await atNextBlock(at, () => mined(stack, sendBatch(stack, items)));
        const skipped = parseEventLogs({ abi: stack.escrow.abi, eventName: "DebitSkipped", logs: receipt.logs });
        expect(skipped.map((log) => log.args)).to.deep.equal(
          cases.map(([item, expected]) => ({
            resourceId: item.authorization.resourceId,
            buyer: item.authorization.buyer,
            nonce: item.authorization.nonce,
            reason: expected,
          })),
        );
        expect(debitLogs(stack.escrow, receipt.logs)).to.have.length(0);
        expect(await stack.escrow.read.balanceOf([buyer.account.address])).to.equal(100n * USDC - 1n);
      });

      it("reports SpendLimitExceeded(buyer, limit, spent, amount) for an item past the buyer's limit", async function () {
        const stack = await setup();
        await spendLimitInForce(stack, stack.buyer, 1_500n, 3_600n);
        const first = await signedDebit(stack, { resourceId: stack.resourceId, nonce: nonceOf("1"), amount: 1_000n });
        const second = await signedDebit(stack, { resourceId: stack.resourceId, nonce: nonceOf("2"), amount: 1_000n });
        await viem.assertions.emitWithArgs(sendBatch(stack, [first, second]), stack.escrow, "DebitSkipped", [
          stack.resourceId,
          stack.buyer.account.address,
          second.authorization.nonce,
          reason(stack, "SpendLimitExceeded", [stack.buyer.account.address, 1_500n, 1_000n, 1_000n]),
        ]);
      });

      it("debits a nonce once when it appears twice in the same batch", async function () {
        const stack = await setup();
        const item = await signedDebit(stack, {
          resourceId: stack.resourceId,
          nonce: nonceOf("twice"),
          amount: 1_000n,
        });
        const { settled, debited, skipped } = await batchLogs(stack, [item, item]);
        expect(settled).to.equal(1n);
        expect(debited).to.have.length(1);
        expect(skipped.map((log) => log.args.reason)).to.deep.equal([
          reason(stack, "NonceAlreadyUsed", [stack.buyer.account.address, item.authorization.nonce]),
        ]);
        expect(await stack.escrow.read.balanceOf([stack.buyer.account.address])).to.equal(100n * USDC - 1_000n);
      });

      it("sees the balance earlier items left: the item that no longer fits is skipped", async function () {
        const stack = await setup();
        const big = { resourceId: stack.resourceId, maxAmount: 100n * USDC };
        const first = await signedDebit(stack, { ...big, nonce: nonceOf("60"), amount: 60n * USDC });
        const second = await signedDebit(stack, { ...big, nonce: nonceOf("50"), amount: 50n * USDC });
        const third = await signedDebit(stack, { ...big, nonce: nonceOf("40"), amount: 40n * USDC });
        const { settled, skipped } = await batchLogs(stack, [first, second, third]);
        expect(settled).to.equal(2n);
        expect(skipped.map((log) => log.args.reason)).to.deep.equal([
          reason(stack, "InsufficientEscrow", [stack.buyer.account.address, 40n * USDC, 50n * USDC]),
        ]);
        expect(await stack.escrow.read.balanceOf([stack.buyer.account.address])).to.equal(0n);
      });

      it("leaves a skipped nonce unspent, so a later debit of it goes through", async function () {
        const stack = await setup();
        const item = await signedDebit(stack, {
          resourceId: stack.resourceId,
          nonce: nonceOf("later"),
          maxAmount: 100n * USDC,
          amount: 100n * USDC,
        });
        const cheap = await signedDebit(stack, { resourceId: stack.resourceId, nonce: nonceOf("cheap"), amount: 1n });
        const { skipped } = await batchLogs(stack, [cheap, item]);
        expect(skipped).to.have.length(1);
        await fundBuyer(stack, stack.buyer, 1n);
        await viem.assertions.emit(
          stack.escrow.write.debit([item], stack.relayerAccount),
          stack.escrow,
          "BatchDebited",
        );
      });
    });
  });
