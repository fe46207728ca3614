import { expect } from "chai";
import { parseGwei } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import type { HoldEnv } from "./runScenario.ts";
import { runScenario } from "./runScenario.ts";
import type { EconomicsChain } from "./startEconomicsChain.ts";
import { startEconomicsChain } from "./startEconomicsChain.ts";

const PRICING = { base: 8_000n, perKB: 100n, max: 8_100n };
/** Three debits of 20,000 pay for their batch at 20 gwei with the margin, two do not (holdPolicy.test.ts). */
const PAYING = { base: 20_000n, perKB: 100n, max: 20_100n };
const hold = (maxSeconds: number): HoldEnv => ({
  HOLD_MAX_SECONDS: String(maxSeconds),
  HOLD_MARGIN_BPS: "2000",
  HOLD_DEADLINE_MARGIN_SECONDS: "60",
});

describe("economics: a scenario on the simulated clock", function () {
  let chain: EconomicsChain;
  let resourceId: `0x${string}`;
  let payingId: `0x${string}`;

  before(async function () {
    chain = await startEconomicsChain();
    await chain.pinBaseFee(parseGwei("20"));
    resourceId = await chain.registerListing("economics-test", PRICING);
    payingId = await chain.registerListing("economics-test-paying", PAYING);
  });

  after(async function () {
    await chain?.close();
  });

  async function run(holdSeconds: number, listing = { resourceId, pricing: PRICING }) {
    const buyer = privateKeyToAccount(generatePrivateKey());
    await chain.depositFor([buyer.address], 4n * listing.pricing.max);
    return runScenario({
      chain,
      hold: hold(holdSeconds),
      batchMaxItems: 128,
      log: () => {},
      scenario: {
        kind: "bitmap",
        buyers: [buyer],
        resourceId: listing.resourceId,
        cap: listing.pricing.max,
        charge: listing.pricing.base,
        calls: 4,
        arrivalAt: (i) => 60 * i,
      },
    });
  }

  it("holds a minute's calls until the longest hold and mines them in one batch, held as the facilitator counts", async function () {
    const result = await run(3_000);
    expect(result.books).to.include({ transactions: 1n, debits: 4n });
    expect(result.heldSeconds.sort((a, b) => a - b)).to.deep.equal([2_820, 2_880, 2_940, 3_000]);
    expect(result.holdHistogram).to.deep.equal({ count: 4, sum: 11_640 });
    expect(result.forced.longest_hold).to.deep.include({ batches: 1, debits: 4 });
    expect(result.forced.deadline.batches).to.equal(0);
  });

  it("sends a batch as soon as it pays for itself, and holds the debit after it until the longest hold", async function () {
    const result = await run(3_000, { resourceId: payingId, pricing: PAYING });
    expect(result.books).to.include({ transactions: 2n, debits: 4n });
    expect(result.heldSeconds.sort((a, b) => a - b)).to.deep.equal([0, 60, 120, 3_000]);
    expect(result.forced.longest_hold).to.deep.include({ batches: 1, debits: 1 });
  });

  it("sends at the first debit's deadline when the longest hold is longer, and the chain still accepts every debit", async function () {
    const result = await run(3_600);
    // validBefore is an hour after each call; the deadline keeps 60 s of it for mining.
    expect(result.books).to.include({ transactions: 1n, debits: 4n });
    expect(result.heldSeconds.sort((a, b) => a - b)).to.deep.equal([3_360, 3_420, 3_480, 3_540]);
    expect(result.forced.deadline).to.deep.include({ batches: 1, debits: 4 });
  });
});
