import { expect } from "chai";
import type { Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import type { LocalChain } from "../../../testkit/chain/localChain.ts";
import { devKey, ROLE, startLocalChain } from "../../../testkit/chain/localChain.ts";
import { readBooks } from "../../../testkit/facilitator/readBooks.ts";
import { signExactToEscrow } from "../../../testkit/facilitator/signExactToEscrow.ts";
import { getJson, postJson, startFacilitator } from "../../../testkit/facilitator/startFacilitator.ts";
import { until } from "../../../testkit/until.ts";
import { signEscrowPayment } from "../../buyer/src/sdk/signPayment.ts";
import { BITMAP_NONCE_TAG, bitmapNonce } from "../../protocol/bitmapNonce.ts";
import { BASE_FEE_FLOOR_WEI, SETTLEMENT_GAS_EXACT, SETTLEMENT_MARGIN_BPS } from "../../protocol/constants.ts";
import { expectedDebitGas } from "../../protocol/expectedDebitGas.ts";
import { priceFloor } from "../../protocol/priceFloor.ts";
import { randomNonce } from "../../protocol/resourceId.ts";

const RESPONSE = { status: 200, contentType: "application/json", body: { ok: 1 } };

/**
 * Verify takes a payment only when the treasury's share of its price pays for its own settlement at the current base
 * fee. An `exact` payment is settled in a transaction of its own, about nine times the gas of a batched debit: a
 * creator who pays its own cheap resource through `exact` gets 95% back as creator, so each call would cost it the
 * treasury's 5% while the relayer paid the whole settlement. A debit of a random nonce writes a storage slot of its
 * own, so it needs a higher price than a debit of a bitmap nonce.
 */
describe("verify takes only payments whose price pays for their settlement (docs/protocol.md, Price floor)", function () {
  let chain: LocalChain;
  let feeBps: number;
  let facilitator: Awaited<ReturnType<typeof startFacilitator>>;
  const creator = privateKeyToAccount(devKey(ROLE.creator));
  const buyer = privateKeyToAccount(devKey(ROLE.buyer));

  before(async function () {
    chain = await startLocalChain();
    feeBps = await chain.contracts.escrow.read.feeBps();
    await chain.contracts.token.write.mint([creator.address, 10n ** 9n]);
    await chain.fundBuyer(ROLE.buyer, 10_000_000n);
    facilitator = await startFacilitator(chain);
  });

  after(async function () {
    await facilitator?.stop();
    await chain?.close();
  });

  /**
   * Puts the chain at the test network's base fee floor (the local chain's own falls with every block), waits until
   * the facilitator reads it (it caches the base fee for a block time), and answers the floor of `gas` there.
   */
  async function atTestNetworkFee(gas: number): Promise<bigint> {
    await chain.setBaseFee(BASE_FEE_FLOOR_WEI);
    await until(
      async () => (await getJson(`${facilitator.url}/pricing/exact`)).body.baseFeeWei === "20000000000" || undefined,
      5_000,
      "the facilitator reading the new base fee",
    );
    return priceFloor({ gasPerDebit: gas, baseFeeWei: BASE_FEE_FLOOR_WEI, feeBps, marginBps: SETTLEMENT_MARGIN_BPS })
      .minimumBase;
  }

  const verifyExact = (url: string, resourceId: Hex, value: bigint) =>
    signExactToEscrow(chain, { account: creator, value, resourceId }).then((paymentPayload) =>
      postJson(`${url}/verify`, { paymentPayload, resourceId, maxTimeoutSeconds: 60 }),
    );

  it("a creator self-paying through exact does not drain the relayer: a payment at the old cap is refused once the fee makes the cap insufficient", async function () {
    // Before EXACT_COVERS_SETTLEMENT was on by default, this payment was settled: 10,000 pays the treasury 500 against a
    // settleExact of about 2,900 at 20 gwei, and the creator got 9,500 of it back.
    const cheap = await chain.registerResource({ slug: "cheap", cap: 10_000n });
    const least = await atTestNetworkFee(SETTLEMENT_GAS_EXACT);
    const before = await chain.contracts.token.read.balanceOf([creator.address]);
    const booksBefore = await readBooks(facilitator.url);
    const answer = await verifyExact(facilitator.url, cheap, 10_000n);
    expect(answer.body).to.include({ isValid: false, invalidReason: "invalid_payload" });
    expect(answer.body.invalidMessage).to.include("pays the treasury 500");
    expect(answer.body.invalidMessage).to.include(`exact of at least ${least}`);
    expect(answer.body.invalidMessage).to.include("sign again against a new quote");
    expect((await verifyExact(facilitator.url, cheap, least - 1n)).body).to.include({ isValid: false });
    expect(await chain.contracts.token.read.balanceOf([creator.address]), "no token moved").to.equal(before);
    expect((await readBooks(facilitator.url)).transactions, "no settlement sent").to.equal(booksBefore.transactions);
  });

  it("GET /pricing/exact answers that least amount; a payment of it settles, and its treasury share covers the relayer's gas", async function () {
    const covered = await chain.registerResource({ slug: "covered", cap: 10_000n });
    const least = await atTestNetworkFee(SETTLEMENT_GAS_EXACT);
    const pricing = await getJson(`${facilitator.url}/pricing/exact`);
    expect(pricing.body).to.deep.equal({
      minimumAmount: least.toString(),
      baseFeeWei: BASE_FEE_FLOOR_WEI.toString(),
      gas: SETTLEMENT_GAS_EXACT,
      feeBps,
      marginBps: SETTLEMENT_MARGIN_BPS,
      costUnits: "4300",
      treasuryNeededUnits: "5160",
      enforced: true,
    });
    expect(least).to.equal(103_200n);
    const booksBefore = await readBooks(facilitator.url);
    const paymentPayload = await signExactToEscrow(chain, { account: creator, value: least, resourceId: covered });
    const verified = await postJson(`${facilitator.url}/verify`, {
      paymentPayload,
      resourceId: covered,
      maxTimeoutSeconds: 60,
    });
    expect(verified.body).to.include({ isValid: true });
    const settled = await postJson(`${facilitator.url}/settle`, {
      idemKey: paymentPayload.authorization.nonce,
      resourceId: covered,
      amount: least.toString(),
      response: RESPONSE,
    });
    expect(settled.status).to.equal(200);
    const books = await until(async () => {
      const now = await readBooks(facilitator.url);
      return now.transactions > booksBefore.transactions ? now : undefined;
    });
    const cost = books.cost - booksBefore.cost;
    const treasury = books.treasury - booksBefore.treasury;
    expect(cost > 0n, "the relayer paid gas").to.equal(true);
    expect(treasury >= cost, `treasury ${treasury} against cost ${cost}`).to.equal(true);
  });

  it("off, settles an exact payment below that floor, at the relayer's loss", async function () {
    const cheap = await chain.registerResource({ slug: "cheap-off", cap: 10_000n });
    const least = await atTestNetworkFee(SETTLEMENT_GAS_EXACT);
    const off = await startFacilitator(chain, { env: { EXACT_COVERS_SETTLEMENT: "off" } });
    try {
      expect((await verifyExact(off.url, cheap, least - 1n)).body).to.include({ isValid: true });
      expect((await getJson(`${off.url}/pricing/exact`)).body).to.include({ enforced: false });
    } finally {
      await off.stop();
    }
  });

  describe("every nonce shape is priced by its own gas", function () {
    const verifyEscrow = (resourceId: Hex, nonce: Hex) =>
      signEscrowPayment({
        account: buyer,
        escrow: chain.addresses.escrow,
        resourceId,
        maxAmount: 50_000n,
        validBefore: BigInt(Math.floor(Date.now() / 1000) + 600),
        nonce,
      }).then((paymentPayload) =>
        postJson(`${facilitator.url}/verify`, { paymentPayload, resourceId, maxTimeoutSeconds: 60 }),
      );

    it("a bitmap nonce is taken at a price that covers its debit; a random nonce there is refused, naming the bitmap layout", async function () {
      // A listing at the samples' price: above the floor of a bitmap nonce (7,680 at 20 gwei), below a random nonce's.
      const listed = await chain.registerResource({ slug: "listed", cap: 50_000n, base: 10_000n });
      const bitmapFloor = await atTestNetworkFee(expectedDebitGas(bitmapNonce(0)));
      expect(bitmapFloor).to.equal(7_680n);
      expect((await verifyEscrow(listed, bitmapNonce(1))).body).to.include({ isValid: true });
      const random = await verifyEscrow(listed, randomNonce());
      expect(random.body).to.include({ isValid: false, invalidReason: "invalid_payload" });
      expect(random.body.invalidMessage).to.include("random nonce");
      expect(random.body.invalidMessage).to.include(BITMAP_NONCE_TAG);
      expect(random.body.invalidMessage).to.include('"Bitmap nonces"');
    });

    it("a random nonce is taken once the price covers its slot", async function () {
      const dearer = await chain.registerResource({ slug: "dearer", cap: 50_000n, base: 18_300n });
      const randomFloor = await atTestNetworkFee(expectedDebitGas(randomNonce()));
      expect(randomFloor).to.equal(18_300n);
      expect((await verifyEscrow(dearer, randomNonce())).body).to.include({ isValid: true });
    });

    it("no nonce is taken for a listing below the floor at the current fee: the creator must re-price", async function () {
      const stale = await chain.registerResource({ slug: "stale", cap: 50_000n, base: 7_679n });
      await atTestNetworkFee(expectedDebitGas(bitmapNonce(0)));
      const answer = await verifyEscrow(stale, bitmapNonce(2));
      expect(answer.body).to.include({ isValid: false, invalidReason: "invalid_payload" });
      expect(answer.body.invalidMessage).to.include("the price floor is now 7680");
      expect((await verifyEscrow(stale, randomNonce())).body.invalidMessage).to.include("re-price");
    });
  });
});
