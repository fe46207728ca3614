import { expect } from "chai";
import { network } from "hardhat";
import { parseUnits } from "viem";

/**
 * The embedded chain of `npm start` (network `node`) automines one block per transaction. Stamped at least a second
 * after its parent, a burst of single-transaction payments (the `exact` path, unbatched debits) pushed the chain's
 * clock hours ahead of the wall clock, and authorizations signed for an hour from now expired on chain within
 * minutes. Blocks may share a timestamp, so the chain follows the wall clock.
 */
describe("the stack's chain keeps wall-clock time", function () {
  it("stamps a burst of 300 single-transaction payments at the wall clock, not a second apart", async function () {
    const { viem } = await network.create("node");
    const publicClient = await viem.getPublicClient();
    const [admin, buyer, payee] = await viem.getWalletClients();
    if (!admin || !buyer || !payee) throw new Error("the node network has too few accounts");
    const token = await viem.deployContract("TestStablecoin", [admin.account.address]);
    await token.write.mint([buyer.account.address, parseUnits("1000", 6)], { account: admin.account });
    const first = await publicClient.getBlockNumber();

    for (let i = 0; i < 300; i++)
      await token.write.transfer([payee.account.address, 1_000n], { account: buyer.account });

    const last = await publicClient.getBlock();
    expect(last.number - first, "one block per payment").to.equal(300n);
    const ahead = Number(last.timestamp) - Math.floor(Date.now() / 1000);
    expect(ahead, "seconds the chain's clock runs ahead of the wall clock").to.be.at.most(1);
    expect(await token.read.balanceOf([payee.account.address])).to.equal(300_000n);
  });
});
