import { expect } from "chai";
import type { Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import type { LocalChain } from "../../../testkit/chain/localChain.ts";
import { devKey, ROLE, startLocalChain } from "../../../testkit/chain/localChain.ts";
import { committedHarness, RESPONSE } from "../../../testkit/facilitator/committedHarness.ts";
import { signExactToEscrow } from "../../../testkit/facilitator/signExactToEscrow.ts";
import { getJson, postJson, startFacilitator } from "../../../testkit/facilitator/startFacilitator.ts";
import { until } from "../../../testkit/until.ts";
import { buyerChain } from "../../buyer/src/sdk/buyerChain.ts";
import { verifyDebit } from "../../buyer/src/sdk/verifyDebit.ts";
import { settlementIdOf } from "../../protocol/settlementId.ts";
import { COMMIT_MIN_SECONDS } from "../commitSettlement.ts";

const CAP = 50_000n;
const COMMITTED = { SETTLEMENT: "committed" };

describe("committed settlement", function () {
  let chain: LocalChain;
  let resourceId: Hex;
  let h: ReturnType<typeof committedHarness>;
  const buyer = privateKeyToAccount(devKey(ROLE.buyer));
  const automine = (on: boolean) => chain.connection.provider.request({ method: "evm_setAutomine", params: [on] });
  /** Mines a block once the relayer has broadcast (its batch window is 20 ms, on a busy machine perhaps more). */
  const mineBroadcast = async () => {
    await until(async () =>
      (await chain.publicClient.getBlock({ blockTag: "pending" })).transactions.length > 0 ? true : undefined,
    );
    await chain.connection.provider.request({ method: "evm_mine", params: [] });
  };

  before(async function () {
    chain = await startLocalChain();
    resourceId = await chain.registerResource({ slug: "echo", cap: CAP });
    await chain.fundBuyer(ROLE.buyer, 10_000_000n);
    h = committedHarness({ chain, buyer, resourceId, cap: CAP });
  });

  after(async function () {
    await chain?.close();
  });

  it("answers a validated escrow call before its debit is mined, then /results shows the transaction", async function () {
    const facilitator = await startFacilitator(chain, { env: COMMITTED });
    await automine(false);
    try {
      const before = await h.balance();
      const { payload, settled } = await h.pay(facilitator.url, 1_200n);
      const nonce = payload.authorization.nonce;
      expect(settled.status).to.equal(200);
      const settlementId = settlementIdOf({ escrow: chain.addresses.escrow, buyer: buyer.address, nonce });
      expect(settled.body).to.include({ success: true, status: "committed", settlementId, amount: "1200" });
      expect(settled.body).not.to.have.property("transaction");
      const committed = h.receiptOf(settled.body);
      expect(committed).to.include({ status: "committed", settlementId, scheme: "service-escrow", amount: "1200" });
      expect(BigInt(committed.creatorAmount) + BigInt(committed.treasuryAmount)).to.equal(1_200n);
      // Nothing is mined yet: the answer came first.
      expect(await h.balance()).to.equal(before);
      expect(await chain.contracts.escrow.read.nonceUsed([buyer.address, nonce])).to.equal(false);
      expect((await h.resultWhen(facilitator.url, nonce, "committed")).response).to.deep.equal(RESPONSE);
      const again = await h.settle(facilitator.url, payload, 1_200n);
      expect(again.body.receipt, "a repeated settle answers the stored body").to.equal(settled.body.receipt);

      await mineBroadcast();
      const confirmed = await h.resultWhen(facilitator.url, nonce, "confirmed");
      const [debited] = await h.debitsOf(nonce);
      expect(confirmed.decoded).to.deep.equal({
        ...committed,
        status: "confirmed",
        transaction: debited?.transactionHash,
        creatorAmount: committed.creatorAmount,
        treasuryAmount: committed.treasuryAmount,
      });
      expect(await h.balance()).to.equal(before - 1_200n);
      const verified = await verifyDebit(
        buyerChain({ rpcUrl: chain.rpcUrl, escrow: chain.addresses.escrow }),
        committed,
      );
      expect(verified.transaction).to.equal(debited?.transactionHash);
      const repeated = await h.settle(facilitator.url, payload, 1_200n);
      expect(h.receiptOf(repeated.body)).to.deep.equal(confirmed.decoded);
    } finally {
      await automine(true);
      await facilitator.stop();
    }
  });

  it("the buyer SDK refuses a committed receipt whose settlementId or amount is not this payment's", async function () {
    const facilitator = await startFacilitator(chain, { env: COMMITTED });
    try {
      const { payload, settled } = await h.pay(facilitator.url, 1_300n);
      const committed = h.receiptOf(settled.body);
      await h.resultWhen(facilitator.url, payload.authorization.nonce, "confirmed");
      const buyerView = buyerChain({ rpcUrl: chain.rpcUrl, escrow: chain.addresses.escrow });
      const refusal = async (receipt: typeof committed) =>
        verifyDebit(buyerView, receipt, { waitMs: 200 }).then(
          () => "accepted",
          (error: { code?: string }) => error.code,
        );
      const otherEscrow = settlementIdOf({
        escrow: chain.addresses.token,
        buyer: buyer.address,
        nonce: committed.idemKey as Hex,
      });
      expect(await refusal({ ...committed, settlementId: otherEscrow })).to.equal("bad_receipt");
      expect(await refusal({ ...committed, amount: "1200", creatorAmount: "1200", treasuryAmount: "0" })).to.equal(
        "bad_receipt",
      );
      expect(await refusal(committed)).to.equal("accepted");
    } finally {
      await facilitator.stop();
    }
  });

  it("holds a committed debit against the balance until it is mined: no second reservation can spend it", async function () {
    const facilitator = await startFacilitator(chain, { env: { ...COMMITTED, BATCH_WINDOW_MS: "60000" } });
    const poorBuyer = privateKeyToAccount(devKey(ROLE.other));
    await chain.fundBuyer(ROLE.other, CAP);
    const poor = committedHarness({ chain, buyer: poorBuyer, resourceId, cap: CAP });
    try {
      const first = await poor.pay(facilitator.url, CAP);
      expect(first.settled.body.status).to.equal("committed");
      const second = await poor.verify(facilitator.url, await poor.sign());
      expect(second.body).to.include({ isValid: false, invalidReason: "insufficient_balance" });
    } finally {
      await facilitator.stop();
    }
    expect(await poor.balance()).to.equal(0n);
  });

  it("waits for the chain when SETTLEMENT=confirmed: the receipt names its transaction", async function () {
    const facilitator = await startFacilitator(chain, { env: { SETTLEMENT: "confirmed" } });
    try {
      const { payload, settled } = await h.pay(facilitator.url, 1_000n);
      expect(settled.status).to.equal(200);
      expect(settled.body).not.to.have.property("status");
      const [debited] = await h.debitsOf(payload.authorization.nonce);
      expect(h.receiptOf(settled.body).transaction).to.equal(debited?.transactionHash);
    } finally {
      await facilitator.stop();
    }
  });

  it("waits for the transfer of an exact payment even when committed is on", async function () {
    const facilitator = await startFacilitator(chain, { env: COMMITTED });
    try {
      await chain.contracts.token.write.mint([buyer.address, CAP]);
      const payload = await signExactToEscrow(chain, { account: buyer, value: CAP, resourceId });
      const verified = await postJson(`${facilitator.url}/verify`, {
        paymentPayload: payload,
        resourceId,
        maxTimeoutSeconds: 30,
      });
      expect(verified.body.isValid).to.equal(true);
      const settled = await h.settle(facilitator.url, payload as never, CAP);
      expect(settled.status).to.equal(200);
      const receipt = h.receiptOf(settled.body);
      expect(receipt.status).to.equal(undefined);
      expect(receipt.transaction).to.match(/^0x[0-9a-f]{64}$/);
    } finally {
      await facilitator.stop();
    }
  });

  it(`waits for the chain when less than ${COMMIT_MIN_SECONDS} s of the authorization is left`, async function () {
    const facilitator = await startFacilitator(chain, { env: COMMITTED });
    try {
      const { settled } = await h.pay(facilitator.url, 1_000n, { validForSeconds: COMMIT_MIN_SECONDS - 10 });
      expect(settled.status).to.equal(200);
      expect(settled.body).not.to.have.property("status");
      expect(settled.body.transaction).to.match(/^0x[0-9a-f]{64}$/);
    } finally {
      await facilitator.stop();
    }
  });

  it("counts commitments in its metrics", async function () {
    const facilitator = await startFacilitator(chain, { env: COMMITTED });
    try {
      const { payload } = await h.pay(facilitator.url, 1_000n);
      await h.resultWhen(facilitator.url, payload.authorization.nonce, "confirmed");
      const metrics = await getJson(`${facilitator.url}/metrics`);
      expect(metrics.body).to.match(/facilitator_settle_total\{outcome="committed"\} 1/);
      expect(metrics.body).to.match(/facilitator_settle_total\{outcome="settled"\} 1/);
    } finally {
      await facilitator.stop();
    }
  });
});
