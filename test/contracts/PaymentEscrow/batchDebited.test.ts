import { expect } from "chai";
import type { Hex } from "viem";
import { concat, getAddress, numberToHex, parseEventLogs } from "viem";
import { compactDebit } from "../../../services/facilitator/relayer/compactDebit.ts";
import { bitmapNonce, NONCES_PER_WORD } from "../../../services/protocol/bitmapNonce.ts";
import type { Debit } from "../fixtures.ts";
import {
  deployFundedEscrow,
  fundBuyer,
  mined,
  mintTokens,
  networkHelpers,
  registerResource,
  signExactPayment,
  signedDebit,
  spendLimitInForce,
  USDC,
  viem,
} from "../fixtures.ts";

/**
 * PaymentEscrow's packed debit log and per-run accounting: one `BatchDebited` per run of items for one resource,
 * whose `debits` packs (buyer, nonce, amount) per debit; a buyer's account word read and written once per run; and
 * balances below 2^128.
 */
describe("PaymentEscrow BatchDebited and runs", function () {
  async function setup() {
    const stack = await networkHelpers.loadFixture(deployFundedEscrow);
    const news = await registerResource(stack, { slug: "news", payout: stack.accounts.other.account.address });
    await fundBuyer(stack, stack.accounts.other, 10n * USDC);
    return { ...stack, news: news.resourceId, relayerAccount: { account: stack.accounts.relayer.account } };
  }
  type Setup = Awaited<ReturnType<typeof setup>>;

  const entry = (buyer: Hex, nonce: Hex, amount: bigint) => concat([buyer, nonce, numberToHex(amount, { size: 16 })]);

  async function send(stack: Setup, items: Debit[]) {
    const receipt = await mined(
      stack,
      stack.escrow.write.debitBatchCompact([items.map((item) => compactDebit(item)!)], stack.relayerAccount),
    );
    return parseEventLogs({ abi: stack.escrow.abi, eventName: "BatchDebited", logs: receipt.logs }).map(
      (log) => log.args,
    );
  }

  it("logs one BatchDebited per run of one resource, packing buyer, nonce and amount of each debit in order", async function () {
    const stack = await setup();
    const { buyer, other } = stack.accounts;
    const item = (resourceId: Hex, signer: typeof buyer, index: number, amount: bigint) =>
      signedDebit(stack, {
        resourceId,
        buyer: signer.account.address,
        signer,
        nonce: bitmapNonce(index),
        amount,
        maxAmount: 5_000n,
      });
    const logs = await send(stack, [
      await item(stack.resourceId, buyer, 0, 1_000n),
      await item(stack.resourceId, other, 0, 2_000n),
      await item(stack.news, other, 1, 3_000n),
      await item(stack.resourceId, buyer, 1, 4_000n),
    ]);
    const b = buyer.account.address.toLowerCase() as Hex;
    const o = other.account.address.toLowerCase() as Hex;
    expect(logs).to.deep.equal([
      {
        resourceId: stack.resourceId,
        feeBps: 500,
        debits: concat([entry(b, bitmapNonce(0), 1_000n), entry(o, bitmapNonce(0), 2_000n)]),
      },
      { resourceId: stack.news, feeBps: 500, debits: entry(o, bitmapNonce(1), 3_000n) },
      { resourceId: stack.resourceId, feeBps: 500, debits: entry(b, bitmapNonce(1), 4_000n) },
    ]);
    // The buyer's two runs (first and last item) both reached its account word.
    expect(await stack.escrow.read.balanceOf([buyer.account.address])).to.equal(100n * USDC - 5_000n);
    expect(await stack.escrow.read.balanceOf([other.account.address])).to.equal(10n * USDC - 5_000n);
    expect(await stack.escrow.read.earningsOf([stack.accounts.other.account.address])).to.equal(2_850n);
  });

  it("logs nothing for a run whose every item was skipped", async function () {
    const stack = await setup();
    const spent = await signedDebit(stack, { resourceId: stack.news, nonce: bitmapNonce(0), amount: 1_000n });
    await send(stack, [spent]);
    const logs = await send(stack, [
      await signedDebit(stack, { resourceId: stack.news, nonce: bitmapNonce(0), amount: 1_000n }),
      await signedDebit(stack, { resourceId: stack.resourceId, nonce: bitmapNonce(1), amount: 1_000n }),
    ]);
    expect(logs.map((log) => log.resourceId)).to.deep.equal([stack.resourceId]);
  });

  it("counts every item of a buyer's run against its spend limit, and writes the window once", async function () {
    const stack = await setup();
    const { buyer } = stack.accounts;
    await spendLimitInForce(stack, buyer, 2_500n, 3_600n);
    const items = await Promise.all(
      [0, 1, 2].map((i) => signedDebit(stack, { resourceId: stack.resourceId, nonce: bitmapNonce(i), amount: 1_000n })),
    );
    const logs = await send(stack, items);
    expect(logs).to.have.length(1);
    expect(logs[0]?.debits).to.equal(
      concat([
        entry(buyer.account.address.toLowerCase() as Hex, bitmapNonce(0), 1_000n),
        entry(buyer.account.address.toLowerCase() as Hex, bitmapNonce(1), 1_000n),
      ]),
    );
    const [, , , spent] = await stack.escrow.read.spendLimitOf([buyer.account.address]);
    expect(spent).to.equal(2_000n);
    expect(await stack.escrow.read.nonceUsed([buyer.account.address, bitmapNonce(2)])).to.equal(false);
  });

  it("spends the SDK's bitmap nonces (services/protocol/bitmapNonce.ts) as bits, without a nonce slot of their own", async function () {
    const stack = await setup();
    const gasOf = async (nonce: Hex) => {
      const item = await signedDebit(stack, { resourceId: stack.resourceId, nonce, amount: 1n });
      return (await mined(stack, stack.escrow.write.debit([item], stack.relayerAccount))).gasUsed;
    };
    await gasOf(bitmapNonce(0)); // the first debit credits cold earnings slots
    const bit = await gasOf(bitmapNonce(1));
    const slot = await gasOf(`0x${"5a".repeat(32)}`);
    // A new slot costs 20,000 more than rewriting the account word the debit writes anyway.
    expect(slot - bit > 15_000n, `bitmap ${bit}, random ${slot}`).to.equal(true);
  });

  it("moves to a later bitmap word without storing the words before it when none of their bits is spent", async function () {
    // Each debit is the buyer's first from the same snapshot, so both pay the same cold slots.
    const firstDebitGas = async (nonce: Hex) => {
      const stack = await setup();
      const item = await signedDebit(stack, { resourceId: stack.resourceId, nonce, amount: 1n });
      return (await mined(stack, stack.escrow.write.debit([item], stack.relayerAccount))).gasUsed;
    };
    const sameWord = await firstDebitGas(bitmapNonce(1));
    const laterWord = await firstDebitGas(bitmapNonce(NONCES_PER_WORD + 1));
    // Storing word 0's empty bits would cost a cold SSTORE (2,200 gas) for nothing.
    expect(laterWord - sameWord < 1_000n, `word 0 ${sameWord}, word 1 ${laterWord}`).to.equal(true);
  });

  for (const encoding of ["debitBatch", "debitBatchCompact"] as const)
    it(`keeps one buyer's and one resource's run open across a ${encoding}: no item after the first reloads them`, async function () {
      // Each batch is the buyer's first from the same snapshot, so all pay the same cold slots. Items that alternate
      // between two resources end and start a resource run at every item; items of one resource must cost less.
      const perLaterItem = async (alternate: boolean) => {
        const batchGas = async (count: number) => {
          const stack = await setup();
          const items = await Promise.all(
            Array.from({ length: count }, (_, i) =>
              signedDebit(stack, {
                resourceId: alternate && i % 2 === 1 ? stack.news : stack.resourceId,
                nonce: bitmapNonce(i),
                amount: 1n,
              }),
            ),
          );
          const call =
            encoding === "debitBatch"
              ? stack.escrow.write.debitBatch([items], stack.relayerAccount)
              : stack.escrow.write.debitBatchCompact([items.map((item) => compactDebit(item)!)], stack.relayerAccount);
          return (await mined(stack, call)).gasUsed;
        };
        return ((await batchGas(6)) - (await batchGas(2))) / 4n;
      };
      const oneRun = await perLaterItem(false);
      const runPerItem = await perLaterItem(true);
      // 4,948 gas apart today (full and compact); 3 when every item ends and starts its runs (measured on that mutant).
      expect(runPerItem - oneRun > 3_000n, `${oneRun} gas an item in one run, ${runPerItem} a run an item`).to.equal(
        true,
      );
    });

  it("reads no spend-limit slot for a buyer without a limit", async function () {
    // Each debit is the buyer's first from a fresh snapshot: both pay the same cold slots but the limit's.
    const firstDebitGas = async (limited: boolean) => {
      const stack = await setup();
      if (limited) await spendLimitInForce(stack, stack.accounts.buyer, 100n * USDC, 3_600n);
      const item = await signedDebit(stack, { resourceId: stack.resourceId, nonce: bitmapNonce(1), amount: 1n });
      return (await mined(stack, stack.escrow.write.debit([item], stack.relayerAccount))).gasUsed;
    };
    const unlimited = await firstDebitGas(false);
    const limited = await firstDebitGas(true);
    // 27,840 gas apart today: the limit's two cold slots read (4,200) and its window written. Reading them for a
    // buyer without a limit too leaves 23,508.
    expect(limited - unlimited > 25_500n, `without a limit ${unlimited}, with one ${limited}`).to.equal(true);
  });

  it("reports a bitmap nonce's state in buyerState and nonceUsed", async function () {
    const stack = await setup();
    const { buyer } = stack.accounts;
    await send(stack, [
      await signedDebit(stack, { resourceId: stack.resourceId, nonce: bitmapNonce(200), amount: 1n }),
    ]);
    for (const [index, spent] of [
      [200, true],
      [199, false],
      [104, false],
      [8, false],
    ] as const) {
      expect((await stack.escrow.read.buyerState([buyer.account.address, bitmapNonce(index)])).nonceSpent).to.equal(
        spent,
      );
      expect(await stack.escrow.read.nonceUsed([buyer.account.address, bitmapNonce(index)])).to.equal(spent);
    }
  });

  it("reverts AmountTooLarge for a deposit that takes a balance to 2^128 and an exact payment of 2^128", async function () {
    const stack = await setup();
    const { buyer, admin } = stack.accounts;
    const huge = 2n ** 128n - 100n * USDC;
    await mintTokens(stack, admin.account.address, huge);
    await mined(stack, stack.token.write.approve([stack.escrow.address, huge], { account: admin.account }));
    await viem.assertions.revertWithCustomErrorWithArgs(
      stack.escrow.write.depositFor([buyer.account.address, huge], { account: admin.account }),
      stack.escrow,
      "AmountTooLarge",
      [2n ** 128n],
    );
    await mined(stack, stack.escrow.write.depositFor([buyer.account.address, huge - 1n], { account: admin.account }));
    expect(await stack.escrow.read.balanceOf([buyer.account.address])).to.equal(2n ** 128n - 1n);

    await mintTokens(stack, buyer.account.address, 2n ** 128n);
    const payment = await signExactPayment(stack, buyer, { resourceId: stack.resourceId, value: 2n ** 128n });
    await viem.assertions.revertWithCustomErrorWithArgs(
      stack.escrow.write.settleExact([payment], stack.relayerAccount),
      stack.escrow,
      "AmountTooLarge",
      [2n ** 128n],
    );
    expect(getAddress(payment.from)).to.equal(getAddress(buyer.account.address));
  });

  it("settles an exact payment of 2^128 - 1, the largest amount a log carries", async function () {
    const stack = await setup();
    const { buyer, payout } = stack.accounts;
    await mintTokens(stack, buyer.account.address, 2n ** 128n - 1n);
    const largest = await signExactPayment(stack, buyer, { resourceId: stack.resourceId, value: 2n ** 128n - 1n });
    await mined(stack, stack.escrow.write.settleExact([largest], stack.relayerAccount));
    expect(await stack.escrow.read.nonceUsed([buyer.account.address, largest.nonce])).to.equal(true);
    const earned = await stack.escrow.read.earningsOf([payout.account.address]);
    expect(earned > 2n ** 127n, `the payout earned ${earned}`).to.equal(true);
  });
});
