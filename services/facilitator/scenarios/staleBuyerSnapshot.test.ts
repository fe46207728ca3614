import { expect } from "chai";
import type { Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import type { LocalChain } from "../../../testkit/chain/localChain.ts";
import { devKey, startLocalChain } from "../../../testkit/chain/localChain.ts";
import { postJson, startFacilitator } from "../../../testkit/facilitator/startFacilitator.ts";
import { signEscrowPayment } from "../../buyer/src/sdk/signPayment.ts";

const CAP = 50_000n;
const RESPONSE = { status: 200, contentType: "application/json", body: { ok: 1 } };

/**
 * Verify shares a buyer's escrow state read on chain with that buyer's later verifies (BUYER_STATE_TTL_MS). A shared
 * snapshot is older than the chain: these attacks try to make it reserve money that is already gone, or a nonce
 * already used. The lifetime here is a minute, so every verify after the first surely gets the shared snapshot.
 */
describe("verify on a shared, stale buyer snapshot", function () {
  let chain: LocalChain;
  let resourceId: Hex;
  let facilitator: Awaited<ReturnType<typeof startFacilitator>>;
  let chainReads = 0;

  before(async function () {
    chain = await startLocalChain();
    resourceId = await chain.registerResource({ slug: "echo", cap: CAP });
    facilitator = await startFacilitator(chain, { env: { BUYER_STATE_TTL_MS: "60000" } });
    const reader = facilitator.ctx.chain;
    const read = reader.buyerState.bind(reader);
    reader.buyerState = (buyer, nonce) => {
      chainReads++;
      return read(buyer, nonce);
    };
  });

  after(async function () {
    await facilitator?.stop();
    await chain?.close();
  });

  const payer = (index: number) => privateKeyToAccount(devKey(index));
  const sign = (index: number, nonce?: Hex, validForSeconds = 600) =>
    signEscrowPayment({
      account: payer(index),
      escrow: chain.addresses.escrow,
      resourceId,
      maxAmount: CAP,
      validBefore: BigInt(Math.floor(Date.now() / 1000) + validForSeconds),
      ...(nonce ? { nonce } : {}),
    });
  const verify = async (payload: Awaited<ReturnType<typeof sign>>) =>
    (await postJson(`${facilitator.url}/verify`, { paymentPayload: payload, resourceId, maxTimeoutSeconds: 60 })).body;

  it("staleSnapshotDoubleSpend: a debit mined after the snapshot is still held, so its funds are not reserved again", async function () {
    await chain.fundBuyer(9, CAP + CAP / 2n);
    const first = await sign(9);
    expect((await verify(first)).isValid).to.equal(true);
    const settled = await postJson(`${facilitator.url}/settle`, {
      idemKey: first.authorization.nonce,
      resourceId,
      amount: CAP.toString(),
      response: RESPONSE,
    });
    expect(settled.status).to.equal(200);
    expect(await chain.contracts.escrow.read.balanceOf([payer(9).address])).to.equal(CAP / 2n);

    // The shared snapshot still says one and a half caps; what is left is half a cap.
    const second = await verify(await sign(9));
    expect(second).to.include({ isValid: false, invalidReason: "insufficient_balance" });
  });

  it("snapshotNonceReuse: a nonce signed again is refused on a shared snapshot, which never read that nonce", async function () {
    await chain.fundBuyer(10, CAP * 4n);
    const first = await sign(10);
    expect((await verify(first)).isValid).to.equal(true);
    const readsBefore = chainReads;
    const again = await verify(await sign(10, first.authorization.nonce, 900));
    expect(again).to.include({ isValid: false, invalidReason: "nonce_used" });
    expect(chainReads, "the second verify used the shared snapshot").to.equal(readsBefore);
  });

  it("shares the snapshot between a buyer's verifies, and reads afresh before refusing one who has just deposited", async function () {
    await chain.fundBuyer(11, CAP / 2n);
    expect(await verify(await sign(11))).to.include({ isValid: false, invalidReason: "insufficient_balance" });
    await chain.fundBuyer(11, CAP * 2n);
    const readsBefore = chainReads;
    expect((await verify(await sign(11))).isValid, "reserved once read afresh").to.equal(true);
    expect(chainReads).to.equal(readsBefore + 1);
    expect((await verify(await sign(11))).isValid, "the next verify shares that read").to.equal(true);
    expect(chainReads).to.equal(readsBefore + 1);
  });
});
