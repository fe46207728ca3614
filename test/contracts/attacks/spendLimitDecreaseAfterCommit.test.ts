import { expect } from "chai";
import { parseEventLogs } from "viem";
import { compactDebit } from "../../../services/facilitator/relayer/compactDebit.ts";
import type { Debit } from "../fixtures.ts";
import {
  atNextBlock,
  debitLogs,
  deployFundedEscrow,
  mined,
  networkHelpers,
  nonceOf,
  SPEND_LIMIT_DELAY,
  signedDebit,
  spendLimitInForce,
  USDC,
  viem,
} from "../fixtures.ts";

/**
 * Committed settlement: once the facilitator has checked a buyer's spend limit and committed a debit, the relayer
 * mines it later. Were a tighter limit in force at once, the buyer could lower it between the commit and the mining
 * and make the committed debit revert `SpendLimitExceeded`: the call served, never paid. A tightening therefore
 * waits SPEND_LIMIT_DELAY (a day, far longer than any authorization the facilitator accepts) before anyone may apply
 * it; every debit committed before the request is mined or expired by then.
 */
describe("spend-limit decrease after a committed debit", function () {
  async function setup() {
    const stack = await networkHelpers.loadFixture(deployFundedEscrow);
    const { buyer, relayer } = stack.accounts;
    return { ...stack, buyer, relayerAccount: { account: relayer.account } };
  }
  type Setup = Awaited<ReturnType<typeof setup>>;

  function debitBatchCompact(stack: Setup, items: Debit[]) {
    const compact = items.map((item) => {
      const encoded = compactDebit(item);
      if (!encoded) throw new Error(`debit ${item.authorization.nonce} has no compact encoding`);
      return encoded;
    });
    return mined(stack, stack.escrow.write.debitBatchCompact([compact], stack.relayerAccount));
  }

  function debitedIn(stack: Setup, receipt: Awaited<ReturnType<typeof mined>>) {
    const logs = receipt.logs;
    return {
      debited: debitLogs(stack.escrow, logs).map((log) => log.args.nonce),
      skipped: parseEventLogs({ abi: stack.escrow.abi, eventName: "DebitSkipped", logs }).length,
    };
  }

  it("a spend-limit decrease after a committed debit cannot make that debit fail", async function () {
    const stack = await setup();
    const { escrow, buyer, resourceId } = stack;
    await spendLimitInForce(stack, buyer, 5_000n, 3_600n);
    const committed = await signedDebit(stack, { resourceId, nonce: nonceOf("committed"), amount: 3_000n });
    const batched = await signedDebit(stack, { resourceId, nonce: nonceOf("batched"), amount: 1_000n });

    await mined(stack, escrow.write.setSpendLimit([1_000n, 3_600n], { account: buyer.account }));

    await viem.assertions.emit(escrow.write.debit([committed], stack.relayerAccount), escrow, "BatchDebited");
    expect(debitedIn(stack, await debitBatchCompact(stack, [batched]))).to.deep.equal({
      debited: [batched.authorization.nonce],
      skipped: 0,
    });
    expect(await escrow.read.balanceOf([buyer.account.address])).to.equal(100n * USDC - 4_000n);

    await networkHelpers.time.increase(Number(SPEND_LIMIT_DELAY));
    await mined(stack, escrow.write.applySpendLimit([buyer.account.address], { account: buyer.account }));
    const over = await signedDebit(stack, { resourceId, nonce: nonceOf("over"), amount: 1_001n });
    await viem.assertions.revertWithCustomErrorWithArgs(
      escrow.write.debit([over], stack.relayerAccount),
      escrow,
      "SpendLimitExceeded",
      [buyer.account.address, 1_000n, 0n, 1_001n],
    );
    const upTo = await signedDebit(stack, { resourceId, nonce: nonceOf("up to"), amount: 1_000n });
    await viem.assertions.emit(escrow.write.debit([upTo], stack.relayerAccount), escrow, "BatchDebited");
  });

  it("a first spend limit set after a committed debit cannot make that debit fail", async function () {
    const stack = await setup();
    const { escrow, buyer, resourceId } = stack;
    const committed = await signedDebit(stack, { resourceId, nonce: nonceOf("committed"), amount: 2_000n });
    const batched = await signedDebit(stack, { resourceId, nonce: nonceOf("batched"), amount: 2_000n });

    await mined(stack, escrow.write.setSpendLimit([1_000n, 3_600n], { account: buyer.account }));

    await viem.assertions.emit(escrow.write.debit([committed], stack.relayerAccount), escrow, "BatchDebited");
    expect(debitedIn(stack, await debitBatchCompact(stack, [batched]))).to.deep.equal({
      debited: [batched.authorization.nonce],
      skipped: 0,
    });
  });

  it("a longer spend-limit period after a committed debit cannot make that debit fail", async function () {
    const stack = await setup();
    const { escrow, buyer, resourceId } = stack;
    await spendLimitInForce(stack, buyer, 5_000n, 3_600n);
    const first = await signedDebit(stack, { resourceId, nonce: nonceOf("first"), amount: 5_000n });
    const firstAt = (
      await stack.publicClient.getBlock({
        blockNumber: (await mined(stack, escrow.write.debit([first], stack.relayerAccount))).blockNumber,
      })
    ).timestamp;
    // Committed for the next window, which opens an hour after the first debit.
    const committed = await signedDebit(stack, {
      resourceId,
      nonce: nonceOf("next window"),
      amount: 5_000n,
      validBefore: firstAt + 7_200n,
    });

    await mined(stack, escrow.write.setSpendLimit([5_000n, 86_400n], { account: buyer.account }));

    await atNextBlock(firstAt + 3_600n, () =>
      viem.assertions.emit(escrow.write.debit([committed], stack.relayerAccount), escrow, "BatchDebited"),
    );
  });
});
