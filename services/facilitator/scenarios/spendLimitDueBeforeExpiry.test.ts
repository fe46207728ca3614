import { expect } from "chai";
import type { Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import type { LocalChain } from "../../../testkit/chain/localChain.ts";
import { devKey, ROLE, startLocalChain } from "../../../testkit/chain/localChain.ts";
import { manualClock, postJson, startFacilitator } from "../../../testkit/facilitator/startFacilitator.ts";
import { signEscrowPayment } from "../../buyer/src/sdk/signPayment.ts";

const CAP = 50_000n;

/**
 * A spend-limit tightening waits a day on chain, then anyone may apply it. A debit the facilitator commits may be
 * mined until its authorization expires, so a tightening that becomes due before then could make that debit fail
 * on chain: verify counts it as if it were in force, and ignores one that cannot be applied in time.
 */
describe("a spend-limit tightening due before the authorization expires", function () {
  let chain: LocalChain;
  let resourceId: Hex;
  let effectiveAt: number;
  const buyer = privateKeyToAccount(devKey(ROLE.buyer));

  before(async function () {
    chain = await startLocalChain();
    resourceId = await chain.registerResource({ slug: "echo", cap: CAP });
    await chain.fundBuyer(ROLE.buyer, 1_000_000n);
    const account = chain.wallets[ROLE.buyer]!.account;
    await chain.publicClient.waitForTransactionReceipt({
      hash: await chain.contracts.escrow.write.setSpendLimit([CAP + CAP / 2n, 3_600n], { account }),
    });
    const state = await chain.contracts.escrow.read.buyerState([buyer.address, `0x${"00".repeat(32)}`]);
    effectiveAt = Number(state.pendingEffectiveAt);
  });

  after(async function () {
    await chain?.close();
  });

  /** Verifies two payments of one cap each at `now`, each valid for ten minutes; the outcomes of both. */
  async function verifyTwoAt(now: number) {
    const facilitator = await startFacilitator(chain, { clock: manualClock(now) });
    try {
      const outcomes = [];
      for (let i = 0; i < 2; i++) {
        const paymentPayload = await signEscrowPayment({
          account: buyer,
          escrow: chain.addresses.escrow,
          resourceId,
          maxAmount: CAP,
          validBefore: BigInt(now + 600),
        });
        const { body } = await postJson(`${facilitator.url}/verify`, {
          paymentPayload,
          resourceId,
          maxTimeoutSeconds: 60,
        });
        outcomes.push(body.isValid ? "reserved" : body.invalidReason);
      }
      return outcomes;
    } finally {
      await facilitator.stop();
    }
  }

  it("holds a second call to the pending limit when the change is due before the authorization expires", async function () {
    expect(await verifyTwoAt(effectiveAt - 300)).to.deep.equal(["reserved", "over_cap"]);
  });

  it("does not count a change that cannot be applied before the authorization expires", async function () {
    expect(await verifyTwoAt(effectiveAt - 600)).to.deep.equal(["reserved", "reserved"]);
  });
});
