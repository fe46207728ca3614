import { expect } from "chai";
import type { LocalChain } from "../../../../testkit/chain/localChain.ts";
import { ROLE, startLocalChain } from "../../../../testkit/chain/localChain.ts";
import { buyerChain } from "./buyerChain.ts";
import { readBalance } from "./readBalance.ts";

describe("readBalance", function () {
  let chain: LocalChain;

  before(async function () {
    chain = await startLocalChain();
  });

  after(async function () {
    await chain?.close();
  });

  it("shows the spend limit in force and a requested tightening, which is not in force until applied", async function () {
    const address = await chain.fundBuyer(ROLE.buyer, 2_000_000n);
    const account = chain.wallets[ROLE.buyer]!.account;
    const hash = await chain.contracts.escrow.write.setSpendLimit([500_000n, 86_400n], { account });
    const receipt = await chain.publicClient.waitForTransactionReceipt({ hash });
    const requestedAt = (await chain.publicClient.getBlock({ blockNumber: receipt.blockNumber })).timestamp;

    const balance = await readBalance(buyerChain({ rpcUrl: chain.rpcUrl, escrow: chain.addresses.escrow }), address);
    expect({ escrow: balance.escrow, spendLimit: balance.spendLimit }).to.deep.equal({
      escrow: 2_000_000n,
      spendLimit: {
        limit: 0n,
        periodSeconds: 0n,
        spentInWindow: 0n,
        pending: { limit: 500_000n, periodSeconds: 86_400n, effectiveAt: requestedAt + 86_400n },
      },
    });
  });
});
