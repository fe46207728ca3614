import { expect } from "chai";
import type { LocalChain } from "../../../testkit/chain/localChain.ts";
import { devKey, startLocalChain } from "../../../testkit/chain/localChain.ts";
import { createMarketplaceChain } from "../chain.ts";
import { readPriceFloor, sharedPriceFloor } from "./readPriceFloor.ts";

const CONFIG = { SETTLEMENT_GAS_PER_DEBIT: 16_000, SETTLEMENT_MARGIN_BPS: 2_000 };

/** The public floor route's reading, against a real chain whose RPC calls are counted. */
describe("sharedPriceFloor", function () {
  let local: LocalChain;
  before(async function () {
    local = await startLocalChain();
  });
  after(async () => local?.close());

  function countedChain() {
    const chain = createMarketplaceChain({ rpcUrl: local.rpcUrl, operatorKey: devKey(1), addresses: local.addresses });
    const counted = { reads: 0, failNext: false };
    return {
      counted,
      chain: {
        baseFeeWei: () => {
          counted.reads++;
          if (counted.failNext) {
            counted.failNext = false;
            return Promise.reject(new Error("rpc down"));
          }
          return chain.baseFeeWei();
        },
        feeBps: () => chain.feeBps(),
      },
    };
  }

  it("answers many requests of one block from one read of the chain, the same reading as a fresh one", async function () {
    const { chain, counted } = countedChain();
    let clock = 0;
    const floorNow = sharedPriceFloor(chain, CONFIG, { maxAgeMs: 500, now: () => clock });
    const answers = await Promise.all(Array.from({ length: 20 }, () => floorNow()));
    expect(counted.reads).to.equal(1);
    expect(new Set(answers).size, "one reading").to.equal(1);
    clock = 499;
    await floorNow();
    expect(counted.reads, "within the block").to.equal(1);
    clock = 500;
    await floorNow();
    expect(counted.reads, "a block later the chain is read again").to.equal(2);
    expect(answers[0]).to.deep.equal(await readPriceFloor(chain, CONFIG));
  });

  it("keeps no failed read: the next request reads the chain again", async function () {
    const { chain, counted } = countedChain();
    const floorNow = sharedPriceFloor(chain, CONFIG, { maxAgeMs: 60_000, now: () => 0 });
    counted.failNext = true;
    await floorNow().then(
      () => expect.fail("the failed read answered"),
      (error: Error) => expect(error.message).to.equal("rpc down"),
    );
    const floor = await floorNow();
    expect(counted.reads).to.equal(2);
    expect(floor.minimumBase > 0n).to.equal(true);
  });
});
