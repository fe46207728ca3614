import { expect } from "chai";
import { encodeErrorResult, getAddress, parseEventLogs } from "viem";
import type { Debit } from "../fixtures.ts";
import { debitLogs, deployFundedEscrow, mined, networkHelpers, nonceOf, signedDebit, USDC, viem } from "../fixtures.ts";

/**
 * A contract buyer's `isValidSignature` can burn all the gas it is forwarded. Unbounded, that call takes 63/64 of
 * the gas left and the rest of a debitBatch runs out of gas: one hostile wallet would sink every other buyer's
 * debit in the batch. The escrow forwards at most ERC1271_GAS_LIMIT, so the wallet's item is skipped instead.
 */
describe("ERC-1271 gas griefing of a batch", function () {
  async function setup() {
    const stack = await networkHelpers.loadFixture(deployFundedEscrow);
    const burner = await viem.deployContract("GasBurningERC1271Wallet");
    await mined(
      stack,
      stack.token.write.mint([stack.accounts.buyer.account.address, USDC], { account: stack.accounts.admin.account }),
    );
    await mined(
      stack,
      stack.token.write.approve([stack.escrow.address, USDC], { account: stack.accounts.buyer.account }),
    );
    await mined(
      stack,
      stack.escrow.write.depositFor([burner.address, USDC], { account: stack.accounts.buyer.account }),
    );
    const hostile = await signedDebit(stack, {
      resourceId: stack.resourceId,
      buyer: getAddress(burner.address),
      nonce: nonceOf("burner"),
      amount: 1_000n,
    });
    const honest: Debit[] = [];
    for (let i = 0; i < 40; i++)
      honest.push(
        await signedDebit(stack, { resourceId: stack.resourceId, nonce: nonceOf(`honest ${i}`), amount: 10n }),
      );
    return { ...stack, burner, hostile, honest, relayer: stack.accounts.relayer };
  }

  it("bounds the wallet's check to ERC1271_GAS_LIMIT", async function () {
    const { escrow } = await setup();
    expect(await escrow.read.ERC1271_GAS_LIMIT()).to.equal(500_000n);
  });

  describe("when the burning wallet's item leads a batch of 40 honest items", function () {
    it("skips it with DebitSkipped(..., InvalidSignature(wallet)) and settles all 40 within a 3M gas limit", async function () {
      const stack = await setup();
      const receipt = await mined(
        stack,
        stack.escrow.write.debitBatch([[stack.hostile, ...stack.honest]], {
          account: stack.relayer.account,
          gas: 3_000_000n,
        }),
      );
      const skipped = parseEventLogs({ abi: stack.escrow.abi, eventName: "DebitSkipped", logs: receipt.logs }).map(
        (log) => log.args,
      );
      expect(skipped).to.deep.equal([
        {
          resourceId: stack.resourceId,
          buyer: getAddress(stack.burner.address),
          nonce: stack.hostile.authorization.nonce,
          reason: encodeErrorResult({
            abi: stack.escrow.abi,
            errorName: "InvalidSignature",
            args: [getAddress(stack.burner.address)],
          }),
        },
      ]);
      expect(debitLogs(stack.escrow, receipt.logs)).to.have.length(40);
      expect(await stack.escrow.read.balanceOf([stack.burner.address])).to.equal(USDC);
    });

    it("costs the relayer at most ERC1271_GAS_LIMIT more than the honest items alone", async function () {
      const stack = await setup();
      const gasUsed = async (items: Debit[]) => {
        const snapshot = await networkHelpers.takeSnapshot();
        const receipt = await mined(
          stack,
          stack.escrow.write.debitBatch([items], { account: stack.relayer.account, gas: 3_000_000n }),
        );
        await snapshot.restore();
        return receipt.gasUsed;
      };
      const honestOnly = await gasUsed(stack.honest);
      const withBurner = await gasUsed([stack.hostile, ...stack.honest]);
      expect(withBurner > honestOnly).to.equal(true);
      expect(withBurner - honestOnly < 550_000n).to.equal(true);
    });
  });

  describe("when the relayer debits the burning wallet alone", function () {
    it("reverts InvalidSignature(wallet) instead of running out of gas", async function () {
      const stack = await setup();
      await viem.assertions.revertWithCustomErrorWithArgs(
        stack.escrow.write.debit([stack.hostile], { account: stack.relayer.account, gas: 1_000_000n }),
        stack.escrow,
        "InvalidSignature",
        [stack.burner.address],
      );
    });
  });

  describe("when a wallet's honest check is expensive (CostlyERC1271Wallet)", function () {
    async function costly(burn: bigint) {
      const stack = await setup();
      const wallet = await viem.deployContract("CostlyERC1271Wallet", [stack.accounts.buyer.account.address, burn]);
      const { admin, buyer } = stack.accounts;
      await mined(stack, stack.token.write.mint([buyer.account.address, 1_000n], { account: admin.account }));
      await mined(stack, stack.token.write.approve([stack.escrow.address, 1_000n], { account: buyer.account }));
      await mined(stack, stack.escrow.write.depositFor([wallet.address, 1_000n], { account: buyer.account }));
      const item = await signedDebit(stack, {
        resourceId: stack.resourceId,
        buyer: getAddress(wallet.address),
        nonce: nonceOf(`costly ${burn}`),
        amount: 1_000n,
      });
      return { stack, wallet, item };
    }

    it("debits a wallet whose check costs just under ERC1271_GAS_LIMIT, in a batch with honest items", async function () {
      const { stack, wallet, item } = await costly(480_000n);
      const receipt = await mined(
        stack,
        stack.escrow.write.debitBatch([[item, ...stack.honest.slice(0, 3)]], {
          account: stack.relayer.account,
          gas: 3_000_000n,
        }),
      );
      expect(debitLogs(stack.escrow, receipt.logs)).to.have.length(4);
      expect(await stack.escrow.read.balanceOf([wallet.address])).to.equal(0n);
    });

    it("skips a wallet whose check costs more than ERC1271_GAS_LIMIT with InvalidSignature(wallet)", async function () {
      const { stack, wallet, item } = await costly(520_000n);
      const receipt = await mined(
        stack,
        stack.escrow.write.debitBatch([[item, ...stack.honest.slice(0, 3)]], {
          account: stack.relayer.account,
          gas: 3_000_000n,
        }),
      );
      const skipped = parseEventLogs({ abi: stack.escrow.abi, eventName: "DebitSkipped", logs: receipt.logs });
      expect(skipped.map((l) => l.args.buyer)).to.deep.equal([getAddress(wallet.address)]);
      expect(debitLogs(stack.escrow, receipt.logs)).to.have.length(3);
    });
  });
});
