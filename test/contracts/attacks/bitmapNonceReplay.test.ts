import { expect } from "chai";
import type { Hex } from "viem";
import { encodeErrorResult, getAddress, parseEventLogs } from "viem";
import { compactDebit } from "../../../services/facilitator/relayer/compactDebit.ts";
import { bitmapNonce, NONCES_PER_WORD } from "../../../services/protocol/bitmapNonce.ts";
import type { Debit } from "../fixtures.ts";
import {
  debitLogs,
  deployFundedEscrow,
  fundBuyer,
  mined,
  mintTokens,
  networkHelpers,
  nonceOf,
  signExactPayment,
  signedDebit,
  USDC,
  viem,
} from "../fixtures.ts";

/**
 * A bitmap nonce (docs/protocol.md) is one bit of one of the buyer's nonce words: the word the buyer's account keeps
 * beside its balance, or one the escrow moved to a slot of its own when a later word became current. However the
 * relayer orders, repeats or mixes them, each signed nonce pays at most once, and each item of a batch is still
 * checked against its own signature and cap.
 */
describe("replay of bitmap nonces", function () {
  async function setup() {
    const stack = await networkHelpers.loadFixture(deployFundedEscrow);
    return { ...stack, relayerAccount: { account: stack.accounts.relayer.account } };
  }
  type Setup = Awaited<ReturnType<typeof setup>>;

  const debitOf = (stack: Setup, nonce: Hex, amount = 1_000n, signer = stack.accounts.buyer) =>
    signedDebit(stack, {
      resourceId: stack.resourceId,
      buyer: signer.account.address,
      nonce,
      amount,
      maxAmount: 5_000n,
      signer,
    });

  /** Sends `items` as one compact batch; returns the nonces debited and the skipped items' reasons. */
  async function batch(stack: Setup, items: Debit[]) {
    const receipt = await mined(
      stack,
      stack.escrow.write.debitBatchCompact([items.map((item) => compactDebit(item)!)], stack.relayerAccount),
    );
    return {
      debited: debitLogs(stack.escrow, receipt.logs).map((log) => log.args.nonce),
      skipped: parseEventLogs({ abi: stack.escrow.abi, eventName: "DebitSkipped", logs: receipt.logs }).map((log) => ({
        nonce: log.args.nonce,
        reason: log.args.reason,
      })),
    };
  }

  const nonceUsed = (stack: Setup, nonce: Hex) =>
    encodeErrorResult({
      abi: stack.escrow.abi,
      errorName: "NonceAlreadyUsed",
      args: [getAddress(stack.accounts.buyer.account.address), nonce],
    });
  const balance = (stack: Setup) => stack.escrow.read.balanceOf([stack.accounts.buyer.account.address]);

  describe("when a spent bit is presented again in a later batch", function () {
    it("skips it with NonceAlreadyUsed, even signed anew for another amount", async function () {
      const stack = await setup();
      const nonce = bitmapNonce(5);
      expect(await batch(stack, [await debitOf(stack, nonce)])).to.deep.equal({ debited: [nonce], skipped: [] });
      expect(await stack.escrow.read.nonceUsed([stack.accounts.buyer.account.address, nonce])).to.equal(true);

      const again = await batch(stack, [await debitOf(stack, nonce, 2_000n)]);
      expect(again).to.deep.equal({ debited: [], skipped: [{ nonce, reason: nonceUsed(stack, nonce) }] });
      await viem.assertions.revertWithCustomErrorWithArgs(
        stack.escrow.write.debit([await debitOf(stack, nonce, 3_000n)], stack.relayerAccount),
        stack.escrow,
        "NonceAlreadyUsed",
        [getAddress(stack.accounts.buyer.account.address), nonce],
      );
      expect(await balance(stack)).to.equal(100n * USDC - 1_000n);
    });
  });

  describe("when the same bit is presented under other word indexes", function () {
    it("debits the same bit of each word once, and refuses each again once later words became current", async function () {
      const stack = await setup();
      const sameBit = [5, 5 + NONCES_PER_WORD, 5 + 3 * NONCES_PER_WORD].map(bitmapNonce);
      const [word0, word1, word3] = sameBit as [Hex, Hex, Hex];
      // Word 1 makes word 0 move to a slot of its own; word 3, word 1.
      expect((await batch(stack, [await debitOf(stack, word0), await debitOf(stack, word1)])).debited).to.deep.equal([
        word0,
        word1,
      ]);
      expect((await batch(stack, [await debitOf(stack, word3)])).debited).to.deep.equal([word3]);
      // Word 2, below the current word 3, is written in a slot of its own at once.
      const word2 = bitmapNonce(5 + 2 * NONCES_PER_WORD);
      expect((await batch(stack, [await debitOf(stack, word2)])).debited).to.deep.equal([word2]);

      for (const nonce of [word0, word1, word2, word3]) {
        expect(await batch(stack, [await debitOf(stack, nonce, 2_000n)])).to.deep.equal({
          debited: [],
          skipped: [{ nonce, reason: nonceUsed(stack, nonce) }],
        });
      }
      // Bits beside them stay free in every word.
      const neighbours = [4, 6 + NONCES_PER_WORD, 4 + 2 * NONCES_PER_WORD, 6 + 3 * NONCES_PER_WORD].map(bitmapNonce);
      expect((await batch(stack, await Promise.all(neighbours.map((n) => debitOf(stack, n))))).debited).to.deep.equal(
        neighbours,
      );
      expect(await balance(stack)).to.equal(100n * USDC - 8n * 1_000n);
    });
  });

  describe("when one bit is spent twice in one batch", function () {
    it("debits the first item and skips the second with NonceAlreadyUsed", async function () {
      const stack = await setup();
      const nonce = bitmapNonce(7);
      const result = await batch(stack, [await debitOf(stack, nonce, 1_000n), await debitOf(stack, nonce, 2_000n)]);
      expect(result).to.deep.equal({ debited: [nonce], skipped: [{ nonce, reason: nonceUsed(stack, nonce) }] });
      expect(await balance(stack)).to.equal(100n * USDC - 1_000n);
    });

    it("skips it also after a later word became current in between, within the batch", async function () {
      const stack = await setup();
      const first = bitmapNonce(7);
      const later = bitmapNonce(7 + NONCES_PER_WORD);
      const result = await batch(stack, [
        await debitOf(stack, first),
        await debitOf(stack, later),
        await debitOf(stack, first, 2_000n),
        await debitOf(stack, later, 3_000n),
      ]);
      expect(result).to.deep.equal({
        debited: [first, later],
        skipped: [
          { nonce: first, reason: nonceUsed(stack, first) },
          { nonce: later, reason: nonceUsed(stack, later) },
        ],
      });
      expect(await balance(stack)).to.equal(100n * USDC - 2_000n);
    });
  });

  describe("when a random nonce is sent beside bitmap nonces in one batch", function () {
    it("spends each in its own place: the random one once, the bits once each", async function () {
      const stack = await setup();
      const random = nonceOf("random beside bitmap");
      const [zero, one] = [bitmapNonce(0), bitmapNonce(1)];
      const result = await batch(stack, [
        await debitOf(stack, zero),
        await debitOf(stack, random),
        await debitOf(stack, one),
        await debitOf(stack, random, 2_000n),
      ]);
      expect(result).to.deep.equal({
        debited: [zero, random, one],
        skipped: [{ nonce: random, reason: nonceUsed(stack, random) }],
      });
      for (const nonce of [zero, one, random]) {
        expect(await stack.escrow.read.nonceUsed([stack.accounts.buyer.account.address, nonce])).to.equal(true);
      }
      // A random nonce never spends a bit, and the next bit is still free.
      expect(await stack.escrow.read.nonceUsed([stack.accounts.buyer.account.address, bitmapNonce(2)])).to.equal(false);
      const replay = await batch(stack, [await debitOf(stack, random, 3_000n), await debitOf(stack, zero, 3_000n)]);
      expect(replay.debited).to.deep.equal([]);
      expect(await balance(stack)).to.equal(100n * USDC - 3_000n);
    });
  });

  describe("when another buyer presents the same bitmap nonce", function () {
    it("debits it: bits are the buyer's own, and a debit of one buyer between two of another changes neither's", async function () {
      const stack = await setup();
      const { buyer, other } = stack.accounts;
      await fundBuyer(stack, other, 10n * USDC);
      const nonce = bitmapNonce(3);
      const result = await batch(stack, [
        await debitOf(stack, nonce),
        await debitOf(stack, nonce, 1_000n, other),
        await debitOf(stack, bitmapNonce(4)),
      ]);
      expect(result.debited).to.deep.equal([nonce, nonce, bitmapNonce(4)]);
      expect(await stack.escrow.read.balanceOf([buyer.account.address])).to.equal(100n * USDC - 2_000n);
      expect(await stack.escrow.read.balanceOf([other.account.address])).to.equal(10n * USDC - 1_000n);
      expect(await stack.escrow.read.nonceUsed([other.account.address, bitmapNonce(4)])).to.equal(false);
    });
  });

  describe("when an item of a buyer's run exceeds its cap or carries a bad signature", function () {
    it("skips that item alone, leaves its bit unspent and debits the rest of the run", async function () {
      const stack = await setup();
      const nonces = [0, 1, 2, 3].map(bitmapNonce) as [Hex, Hex, Hex, Hex];
      const overCap = { ...(await debitOf(stack, nonces[1])), amount: 5_001n };
      const forged = await signedDebit(stack, {
        resourceId: stack.resourceId,
        nonce: nonces[2],
        amount: 1_000n,
        maxAmount: 5_000n,
        signer: stack.accounts.other,
      });
      const forgedAsBuyer = {
        ...forged,
        authorization: { ...forged.authorization, buyer: stack.accounts.buyer.account.address },
      };
      const result = await batch(stack, [
        await debitOf(stack, nonces[0]),
        overCap,
        forgedAsBuyer,
        await debitOf(stack, nonces[3]),
      ]);
      expect(result.debited).to.deep.equal([nonces[0], nonces[3]]);
      expect(result.skipped).to.deep.equal([
        {
          nonce: nonces[1],
          reason: encodeErrorResult({ abi: stack.escrow.abi, errorName: "AmountExceedsMax", args: [5_001n, 5_000n] }),
        },
        {
          nonce: nonces[2],
          reason: encodeErrorResult({
            abi: stack.escrow.abi,
            errorName: "InvalidSignature",
            args: [getAddress(stack.accounts.buyer.account.address)],
          }),
        },
      ]);
      // The skipped items' bits are free: the buyer's own valid authorizations for them still pay.
      const later = await batch(stack, [await debitOf(stack, nonces[1]), await debitOf(stack, nonces[2])]);
      expect(later.debited).to.deep.equal([nonces[1], nonces[2]]);
      expect(await balance(stack)).to.equal(100n * USDC - 4_000n);
    });
  });

  describe("when an exact payment spends a bitmap nonce", function () {
    it("refuses a debit with the same nonce, and the exact payment with a debit's nonce", async function () {
      const stack = await setup();
      const { buyer } = stack.accounts;
      await mintTokens(stack, buyer.account.address, USDC);
      const exactNonce = bitmapNonce(9);
      const payment = await signExactPayment(stack, buyer, {
        resourceId: stack.resourceId,
        value: 1_000n,
        nonce: exactNonce,
      });
      await mined(stack, stack.escrow.write.settleExact([payment], stack.relayerAccount));
      expect((await batch(stack, [await debitOf(stack, exactNonce)])).debited).to.deep.equal([]);

      const debitNonce = bitmapNonce(10);
      expect((await batch(stack, [await debitOf(stack, debitNonce)])).debited).to.deep.equal([debitNonce]);
      const late = await signExactPayment(stack, buyer, {
        resourceId: stack.resourceId,
        value: 1_000n,
        nonce: debitNonce,
      });
      await viem.assertions.revertWithCustomErrorWithArgs(
        stack.escrow.write.settleExact([late], stack.relayerAccount),
        stack.escrow,
        "NonceAlreadyUsed",
        [getAddress(buyer.account.address), debitNonce],
      );
    });
  });
});
