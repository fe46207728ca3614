import { expect } from "chai";
import { getAddress, parseEventLogs } from "viem";
import type { Debit } from "../fixtures.ts";
import { debitLogs, deployFundedEscrow, mined, networkHelpers, nonceOf, signedDebit, viem } from "../fixtures.ts";

/**
 * A contract buyer's ERC-1271 check gets at most ERC1271_GAS_LIMIT, and only while 64/63 of that is left (the 63/64
 * rule): a transaction sent with too little gas starves the check of a wallet whose signature is valid. The escrow
 * reported that as InvalidSignature: a debit alone reverted as if the buyer had not signed, and in a batch the item was
 * skipped for a bad signature while the transaction succeeded, so a relayer short of gas (by mistake or on purpose)
 * turned a valid, even committed, debit into a refused one. A check that failed without the gas it is due now reverts
 * the transaction with SignatureCheckOutOfGas(buyer): the transaction's gas decided it, and more gas succeeds.
 */
describe("attack: a contract buyer's valid signature check starved of gas by the transaction's gas limit", function () {
  async function setup() {
    const stack = await networkHelpers.loadFixture(deployFundedEscrow);
    const { admin, buyer } = stack.accounts;
    // An honest wallet whose check costs 480,000 gas, within ERC1271_GAS_LIMIT (500,000).
    const wallet = await viem.deployContract("CostlyERC1271Wallet", [buyer.account.address, 480_000n]);
    await mined(stack, stack.token.write.mint([buyer.account.address, 1_000n], { account: admin.account }));
    await mined(stack, stack.token.write.approve([stack.escrow.address, 1_000n], { account: buyer.account }));
    await mined(stack, stack.escrow.write.depositFor([wallet.address, 1_000n], { account: buyer.account }));
    const item: Debit = await signedDebit(stack, {
      resourceId: stack.resourceId,
      buyer: getAddress(wallet.address),
      nonce: nonceOf("starved"),
      amount: 1_000n,
    });
    return { ...stack, wallet, item, asRelayer: { account: stack.accounts.relayer.account } };
  }

  it("debit with 450,000 gas reverts SignatureCheckOutOfGas(wallet), not InvalidSignature; with enough gas it pays", async function () {
    const s = await setup();
    await viem.assertions.revertWithCustomErrorWithArgs(
      s.escrow.write.debit([s.item], { ...s.asRelayer, gas: 450_000n }),
      s.escrow,
      "SignatureCheckOutOfGas",
      [getAddress(s.wallet.address)],
    );
    const receipt = await mined(s, s.escrow.write.debit([s.item], { ...s.asRelayer, gas: 1_000_000n }));
    expect(debitLogs(s.escrow, receipt.logs)).to.have.length(1);
    expect(await s.escrow.read.balanceOf([s.wallet.address])).to.equal(0n);
  });

  it("a batch with 450,000 gas reverts whole instead of skipping the wallet's item for a bad signature", async function () {
    const s = await setup();
    const sent = s.escrow.write.debitBatch([[s.item]], { ...s.asRelayer, gas: 450_000n });
    await viem.assertions.revertWithCustomErrorWithArgs(sent, s.escrow, "SignatureCheckOutOfGas", [
      getAddress(s.wallet.address),
    ]);
    expect(await s.escrow.read.nonceUsed([s.wallet.address, s.item.authorization.nonce])).to.equal(false);
    const receipt = await mined(s, s.escrow.write.debitBatch([[s.item]], { ...s.asRelayer, gas: 1_000_000n }));
    expect(parseEventLogs({ abi: s.escrow.abi, eventName: "DebitSkipped", logs: receipt.logs })).to.deep.equal([]);
    expect(debitLogs(s.escrow, receipt.logs)).to.have.length(1);
  });
});
