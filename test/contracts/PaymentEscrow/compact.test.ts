import { expect } from "chai";
import type { Hex } from "viem";
import { concat, encodeErrorResult, getAddress, numberToHex, parseEventLogs } from "viem";
import type { CompactDebit } from "../../../services/facilitator/relayer/compactDebit.ts";
import { compactDebit } from "../../../services/facilitator/relayer/compactDebit.ts";
import {
  debitLogs,
  deployFundedEscrow,
  fundBuyer,
  mined,
  networkHelpers,
  nonceOf,
  registerResource,
  signedDebit,
  USDC,
  viem,
} from "../fixtures.ts";

/**
 * PaymentEscrow.debitBatchCompact's encoding: the escrow rebuilds the authorization and the signature from six
 * words, so nothing in them can be changed without the buyer's signature failing. (Its checks and outcomes are the
 * ones of debitBatch: paymentEscrow.batch.test.ts runs every batch test in both encodings.) A signature's malleable
 * twin has an s above 2^255 for all but a 2^-128 share of signatures, so the compact form cannot even carry it;
 * the escrow's low-s rule, shared by every path, is tested on `debit` (malleableSignature.test.ts).
 */
describe("PaymentEscrow.debitBatchCompact encoding", function () {
  async function setup() {
    const stack = await networkHelpers.loadFixture(deployFundedEscrow);
    return { ...stack, relayerAccount: { account: stack.accounts.relayer.account } };
  }
  type Setup = Awaited<ReturnType<typeof setup>>;

  async function send(stack: Setup, items: CompactDebit[]) {
    const receipt = await mined(stack, stack.escrow.write.debitBatchCompact([items], stack.relayerAccount));
    return {
      debited: debitLogs(stack.escrow, receipt.logs),
      skipped: parseEventLogs({ abi: stack.escrow.abi, eventName: "DebitSkipped", logs: receipt.logs }),
    };
  }

  const invalidSignature = (stack: Setup, buyer: Hex) =>
    encodeErrorResult({ abi: stack.escrow.abi, errorName: "InvalidSignature", args: [buyer] });

  it("refuses an item whose buyer, resource, nonce, cap, window or signature was changed, and debits the untouched one", async function () {
    const stack = await setup();
    const { buyer, other } = stack.accounts;
    await fundBuyer(stack, other, 10n * USDC);
    const news = await registerResource(stack, { slug: "news", payout: stack.accounts.creator.account.address });
    const item = compactDebit(
      await signedDebit(stack, { resourceId: stack.resourceId, maxAmount: 5_000n, amount: 1_000n }),
    )!;
    const word = (value: bigint) => numberToHex(value, { size: 32 });
    const buyerBits = (1n << 160n) - 1n;
    const changed: Array<[string, CompactDebit]> = [
      ["buyer", { ...item, buyerWindow: (item.buyerWindow & ~buyerBits) | BigInt(other.account.address) }],
      ["resource", { ...item, resourceId: news.resourceId }],
      ["nonce", { ...item, nonce: nonceOf("another nonce") }],
      ["cap raised", { ...item, amounts: (5_001n << 128n) | 1_000n }],
      ["validAfter", { ...item, buyerWindow: item.buyerWindow + (1n << 208n) }],
      ["validBefore", { ...item, buyerWindow: item.buyerWindow + (1n << 160n) }],
      ["r", { ...item, r: word(BigInt(item.r) ^ 1n) }],
      ["v", { ...item, vs: word(BigInt(item.vs) ^ (1n << 255n)) }],
      ["s", { ...item, vs: word(BigInt(item.vs) ^ 1n) }],
    ];
    const { debited, skipped } = await send(stack, [...changed.map(([, c]) => c), item]);

    const buyerOf = (c: CompactDebit) => getAddress(numberToHex(c.buyerWindow & buyerBits, { size: 20 }));
    expect(skipped.map((log) => [log.args.buyer, log.args.reason])).to.deep.equal(
      changed.map(([, c]) => [buyerOf(c), invalidSignature(stack, buyerOf(c))]),
    );
    expect(debited.map((log) => [log.args.nonce, log.args.amount])).to.deep.equal([[item.nonce, 1_000n]]);
    expect(await stack.escrow.read.balanceOf([buyer.account.address])).to.equal(100n * USDC - 1_000n);
    expect(await stack.escrow.read.balanceOf([other.account.address])).to.equal(10n * USDC);
  });

  it("shows a contract wallet the 65 bytes (r, s, v) its owner signed, not the 64 it was packed into", async function () {
    const stack = await setup();
    const { buyer, admin } = stack.accounts;
    const wallet = await viem.deployContract("ERC1271Wallet", [buyer.account.address]);
    await mined(stack, stack.token.write.mint([buyer.account.address, USDC], { account: admin.account }));
    await mined(stack, stack.token.write.approve([stack.escrow.address, USDC], { account: buyer.account }));
    await mined(stack, stack.escrow.write.depositFor([wallet.address, USDC], { account: buyer.account }));
    const signed = await signedDebit(stack, { resourceId: stack.resourceId, buyer: wallet.address, amount: 2_000n });
    const item = compactDebit(signed)!;
    // The wallet refuses anything but the owner's exact 65 bytes.
    expect(
      concat([
        item.r,
        numberToHex(BigInt(item.vs) & ((1n << 255n) - 1n), { size: 32 }),
        numberToHex(27n + (BigInt(item.vs) >> 255n), { size: 1 }),
      ]),
    ).to.equal(signed.signature);

    const { debited, skipped } = await send(stack, [item]);
    expect(skipped).to.have.length(0);
    expect(debited.map((log) => log.args.buyer)).to.deep.equal([getAddress(wallet.address)]);
    expect(await stack.escrow.read.balanceOf([wallet.address])).to.equal(USDC - 2_000n);
  });
});
