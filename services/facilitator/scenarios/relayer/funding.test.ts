import { expect } from "chai";
import type { Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import type { LocalChain } from "../../../../testkit/chain/localChain.ts";
import { devKey, ROLE, startLocalChain } from "../../../../testkit/chain/localChain.ts";
import { committedHarness } from "../../../../testkit/facilitator/committedHarness.ts";
import { getJson, startFacilitator } from "../../../../testkit/facilitator/startFacilitator.ts";
import { until } from "../../../../testkit/until.ts";
import { fullBatchGas } from "../../relayer/batchGas.ts";

const CAP = 50_000n;
const BATCH_MAX_ITEMS = 64;

/**
 * A relayer that cannot pay for a full batch. It used to answer `/ready` 200 and commit every payment (200
 * `committed`) whose debit the chain then refused for insufficient funds; a fee spike was paid whatever it cost.
 */
describe("relayer funding and fee cap", function () {
  this.timeout(120_000);
  let chain: LocalChain;
  let resourceId: Hex;
  let h: ReturnType<typeof committedHarness>;
  const buyer = privateKeyToAccount(devKey(ROLE.buyer));
  const relayer = privateKeyToAccount(devKey(ROLE.relayer)).address;

  before(async function () {
    chain = await startLocalChain();
    resourceId = await chain.registerResource({ slug: "echo", cap: CAP });
    await chain.fundBuyer(ROLE.buyer, CAP * 100n);
    h = committedHarness({ chain, buyer, resourceId, cap: CAP });
  });

  after(async function () {
    await chain?.close();
  });

  const setRelayerBalance = (wei: bigint) =>
    chain.connection.provider.request({ method: "hardhat_setBalance", params: [relayer, `0x${wei.toString(16)}`] });

  const facilitatorWith = (env: Record<string, string> = {}) =>
    startFacilitator(chain, {
      env: { SETTLEMENT: "committed", BATCH_WINDOW_MS: "50", BATCH_MAX_ITEMS: String(BATCH_MAX_ITEMS), ...env },
    });

  /** Verify refuses with `code`, retryable, and nothing is reserved or debited for the payment. */
  async function expectRefused(url: string, code: string) {
    const payload = await h.sign();
    const verified = await h.verify(url, payload);
    expect(verified.status, JSON.stringify(verified.body)).to.equal(503);
    expect(verified.body.error.code).to.equal(code);
    expect(verified.headers.get("retry-after")).to.match(/^\d+$/);
    const settled = await h.settle(url, payload, 1_000n);
    expect(settled.status, "a refused payment cannot be settled").to.not.equal(200);
    expect(await h.debitsOf(payload.authorization.nonce)).to.have.length(0);
  }

  it("a pool of two keys, one holding half a batch: /ready 200 naming it unfunded, and payments taken and debited by the other", async function () {
    // Before, one low key of a pool made /ready 503: with instances sharing the pool, every one of them left the
    // load balancer while verify still took payments and the other keys paid for them.
    const { maxFeePerGas } = await chain.publicClient.estimateFeesPerGas();
    await setRelayerBalance((fullBatchGas(BATCH_MAX_ITEMS) * maxFeePerGas) / 2n);
    const facilitator = await facilitatorWith({ RELAYER_KEYS: `${devKey(ROLE.relayer)},${devKey(ROLE.relayer2)}` });
    try {
      // Once its escrow book has reached the head.
      const ready = await until(
        async () => {
          const answer = await getJson(`${facilitator.url}/ready`);
          return answer.status === 200 || answer.body.escrowBook ? answer : undefined;
        },
        20_000,
        "the escrow book built",
      );
      expect(ready.status, JSON.stringify(ready.body)).to.equal(200);
      expect(ready.body.unfunded).to.deep.equal([relayer]);
      const payload = await h.sign();
      expect((await h.verify(facilitator.url, payload)).body.isValid).to.equal(true);
      const settled = await h.settle(facilitator.url, payload, 1_000n);
      expect(settled.status, JSON.stringify(settled.body)).to.equal(200);
      await until(
        async () => ((await h.debitsOf(payload.authorization.nonce)).length === 1 ? true : undefined),
        20_000,
      );
    } finally {
      await facilitator.stop();
      await setRelayerBalance(10n ** 19n);
    }
  });

  it("a relayer holding half of one full batch's gas: /ready 503 naming it, verify refuses relayer_unfunded; funded, it accepts and the debit is mined", async function () {
    const { maxFeePerGas } = await chain.publicClient.estimateFeesPerGas();
    await setRelayerBalance((fullBatchGas(BATCH_MAX_ITEMS) * maxFeePerGas) / 2n);
    const facilitator = await facilitatorWith();
    try {
      const ready = await getJson(`${facilitator.url}/ready`);
      expect(ready.status, JSON.stringify(ready.body)).to.equal(503);
      expect(ready.body.unfunded).to.deep.equal([relayer]);
      expect(JSON.stringify(ready.body)).not.to.include(devKey(ROLE.relayer).slice(2));
      await expectRefused(facilitator.url, "relayer_unfunded");

      await setRelayerBalance(10n ** 19n);
      const payload = await h.sign();
      const verified = await until(async () => {
        const answer = await h.verify(facilitator.url, payload);
        return answer.status === 200 ? answer : undefined;
      }, 10_000);
      expect(verified.body.isValid).to.equal(true);
      const settled = await h.settle(facilitator.url, payload, 1_000n);
      expect(settled.status, JSON.stringify(settled.body)).to.equal(200);
      await until(
        async () => ((await h.debitsOf(payload.authorization.nonce)).length === 1 ? true : undefined),
        20_000,
      );
      expect((await getJson(`${facilitator.url}/ready`)).status).to.equal(200);
    } finally {
      await facilitator.stop();
    }
  });

  it("the chain's fee above MAX_FEE_PER_GAS: verify refuses fee_above_cap and a debit committed before waits; once the fee falls it is mined and verify accepts", async function () {
    await setRelayerBalance(10n ** 19n);
    const baseFee = (await chain.publicClient.getBlock()).baseFeePerGas ?? 1n;
    const { maxFeePerGas } = await chain.publicClient.estimateFeesPerGas();
    const facilitator = await facilitatorWith({ MAX_FEE_PER_GAS: String(maxFeePerGas * 3n) });
    try {
      const committedBefore = await h.sign();
      expect((await h.verify(facilitator.url, committedBefore)).body.isValid).to.equal(true);

      await chain.setBaseFee(maxFeePerGas * 10n);
      const ready = await until(async () => {
        const answer = await getJson(`${facilitator.url}/ready`);
        return answer.status === 503 ? answer : undefined;
      }, 10_000);
      expect(ready.body.reason).to.include("MAX_FEE_PER_GAS");
      const settled = await h.settle(facilitator.url, committedBefore, 1_000n);
      expect(settled.status, JSON.stringify(settled.body)).to.equal(200);
      expect(settled.body.status).to.equal("committed");
      await expectRefused(facilitator.url, "fee_above_cap");
      expect(await h.debitsOf(committedBefore.authorization.nonce), "not sent above the cap").to.have.length(0);

      await chain.setBaseFee(baseFee);
      await until(
        async () => ((await h.debitsOf(committedBefore.authorization.nonce)).length === 1 ? true : undefined),
        30_000,
      );
      const payload = await h.sign();
      const verified = await until(async () => {
        const answer = await h.verify(facilitator.url, payload);
        return answer.status === 200 ? answer : undefined;
      }, 10_000);
      expect(verified.body.isValid).to.equal(true);
      expect((await getJson(`${facilitator.url}/ready`)).status).to.equal(200);
    } finally {
      await facilitator.stop();
    }
  });
});
