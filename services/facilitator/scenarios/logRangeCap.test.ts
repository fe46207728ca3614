import { expect } from "chai";
import type { Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import type { LocalChain } from "../../../testkit/chain/localChain.ts";
import { devKey, ROLE, startLocalChain } from "../../../testkit/chain/localChain.ts";
import type { RangeLimitedRpc } from "../../../testkit/chain/rangeLimitedRpc.ts";
import { serveRangeLimitedRpc } from "../../../testkit/chain/rangeLimitedRpc.ts";
import { getJson, postJson, startFacilitator } from "../../../testkit/facilitator/startFacilitator.ts";
import { sleep } from "../../../testkit/sleep.ts";
import { signEscrowPayment } from "../../buyer/src/sdk/signPayment.ts";

const CAP = 50_000n;
const MAX_LOG_BLOCKS = 5n;
const response = { status: 200, contentType: "application/json", body: { ok: true } };

/**
 * Public RPCs cap the block range of `eth_getLogs`. The retrier looks for an earlier attempt's `Debited` log before it
 * resends; it used to ask from block `earliest`, so behind such an RPC every retried settlement threw, and the
 * reservation stayed `settling` for good: the buyer never got the result of a call whose debit may well have landed.
 */
describe("settlement retries behind an RPC that caps eth_getLogs ranges", function () {
  let chain: LocalChain;
  let rpc: RangeLimitedRpc;
  let resourceId: Hex;
  const buyer = privateKeyToAccount(devKey(ROLE.buyer));

  before(async function () {
    chain = await startLocalChain();
    resourceId = await chain.registerResource({ slug: "echo", cap: CAP });
    await chain.fundBuyer(ROLE.buyer, 10_000_000n);
    rpc = await serveRangeLimitedRpc(chain.connection.provider, MAX_LOG_BLOCKS);
    // The chain is longer than the cap: a search from genesis is refused.
    expect((await chain.publicClient.getBlockNumber()) > MAX_LOG_BLOCKS * 2n).to.equal(true);
  });

  after(async function () {
    await rpc?.close();
    await chain?.close();
  });

  it("a settlement interrupted by an outage is found again and settled once the RPC returns, searching from its own block in pages", async function () {
    const facilitator = await startFacilitator(
      { ...chain, rpcUrl: rpc.url },
      { env: { BATCH_WINDOW_MS: "50", LOG_RANGE_BLOCKS: MAX_LOG_BLOCKS.toString() } },
    );
    try {
      const payloads = await Promise.all(
        Array.from({ length: 3 }, () =>
          signEscrowPayment({
            account: buyer,
            escrow: chain.addresses.escrow,
            resourceId,
            maxAmount: CAP,
            validBefore: BigInt(Math.floor(Date.now() / 1000) + 600),
          }),
        ),
      );
      for (const paymentPayload of payloads) {
        const v = await postJson(`${facilitator.url}/verify`, { paymentPayload, resourceId, maxTimeoutSeconds: 60 });
        expect(v.body.isValid).to.equal(true);
      }
      // More blocks than one page between verify and the retry, so the search has to page.
      for (let i = 0; i < Number(MAX_LOG_BLOCKS) * 2; i++)
        await chain.publicClient.request({ method: "evm_mine" } as never);
      const before = await chain.contracts.escrow.read.balanceOf([buyer.address]);
      const settles = payloads.map((p) =>
        postJson(`${facilitator.url}/settle`, { idemKey: p.authorization.nonce, resourceId, amount: "1000", response }),
      );
      await sleep(10);
      await rpc.stop();
      const answers = await Promise.all(settles);
      expect(answers.map((a) => a.status)).to.deep.equal([503, 503, 503]);
      await rpc.resume();

      const deadline = Date.now() + 30_000;
      for (const p of payloads) {
        for (;;) {
          const r = await getJson(`${facilitator.url}/results/${p.authorization.nonce}`);
          if (r.status === 200) break;
          if (Date.now() > deadline) throw new Error(`settlement ${p.authorization.nonce} never completed`);
          await sleep(100);
        }
      }
      expect(await chain.contracts.escrow.read.balanceOf([buyer.address])).to.equal(before - 3_000n);
      expect(rpc.refused(), "no eth_getLogs of the facilitator was refused").to.equal(0);
    } finally {
      await rpc.resume();
      await facilitator.stop();
    }
  });
});
