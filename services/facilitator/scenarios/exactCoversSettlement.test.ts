import { expect } from "chai";
import type { Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import type { LocalChain } from "../../../testkit/chain/localChain.ts";
import { devKey, ROLE, startLocalChain } from "../../../testkit/chain/localChain.ts";
import { readBooks } from "../../../testkit/facilitator/readBooks.ts";
import { signExactToEscrow } from "../../../testkit/facilitator/signExactToEscrow.ts";
import { postJson, startFacilitator } from "../../../testkit/facilitator/startFacilitator.ts";
import { BASE_FEE_FLOOR_WEI, SETTLEMENT_GAS_EXACT, SETTLEMENT_MARGIN_BPS } from "../../protocol/constants.ts";
import { priceFloor } from "../../protocol/priceFloor.ts";

const RESPONSE = { status: 200, contentType: "application/json", body: { ok: 1 } };

/**
 * An `exact` payment is settled in a transaction of its own, about nine times the gas of a batched debit. A creator
 * who pays its own cheap resource through `exact` gets 95% back as creator, so each call costs it the treasury's 5%
 * while the relayer pays the whole settlement: with EXACT_COVERS_SETTLEMENT on, verify refuses such a payment.
 */
describe("exact payments that must pay for their own settlement (EXACT_COVERS_SETTLEMENT)", function () {
  let chain: LocalChain;
  let feeBps: number;
  const creator = privateKeyToAccount(devKey(ROLE.creator));

  before(async function () {
    chain = await startLocalChain();
    feeBps = await chain.contracts.escrow.read.feeBps();
    await chain.contracts.token.write.mint([creator.address, 10n ** 9n]);
  });

  after(async function () {
    await chain?.close();
  });

  /**
   * Puts the chain at the test network's base fee floor (the local chain's own falls with every block) and answers
   * the least `exact` payment that pays for its settlement there.
   */
  async function exactFloorAtTestNetworkFee(): Promise<bigint> {
    await chain.setBaseFee(BASE_FEE_FLOOR_WEI);
    const baseFeeWei = (await chain.publicClient.getBlock()).baseFeePerGas ?? 0n;
    return priceFloor({ gasPerDebit: SETTLEMENT_GAS_EXACT, baseFeeWei, feeBps, marginBps: SETTLEMENT_MARGIN_BPS })
      .minimumBase;
  }

  const verify = (url: string, resourceId: Hex, value: bigint) =>
    signExactToEscrow(chain, { account: creator, value, resourceId }).then((paymentPayload) =>
      postJson(`${url}/verify`, { paymentPayload, resourceId, maxTimeoutSeconds: 60 }),
    );

  it("exactSelfPayDrain: a creator paying its own resource below the exact floor is refused, and nothing is settled", async function () {
    const cheap = await chain.registerResource({ slug: "cheap", cap: 10_000n });
    const least = await exactFloorAtTestNetworkFee();
    const facilitator = await startFacilitator(chain, { env: { EXACT_COVERS_SETTLEMENT: "on" } });
    try {
      const before = await chain.contracts.token.read.balanceOf([creator.address]);
      const answer = await verify(facilitator.url, cheap, least - 1n);
      expect(answer.body).to.include({ isValid: false, invalidReason: "invalid_payload" });
      expect(answer.body.invalidMessage).to.include(`exact of at least ${least}`);
      expect(await chain.contracts.token.read.balanceOf([creator.address]), "no token moved").to.equal(before);
      expect((await readBooks(facilitator.url)).transactions, "no settlement sent").to.equal(0n);
    } finally {
      await facilitator.stop();
    }
  });

  it("settles an exact payment at the floor, and its treasury share covers what the relayer paid for it", async function () {
    const covered = await chain.registerResource({ slug: "covered", cap: 10_000n });
    const least = await exactFloorAtTestNetworkFee();
    const facilitator = await startFacilitator(chain, { env: { EXACT_COVERS_SETTLEMENT: "on" } });
    try {
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
      const books = await readBooks(facilitator.url);
      expect(books.transactions).to.equal(1n);
      expect(books.cost > 0n, "the relayer paid gas").to.equal(true);
      expect(books.treasury >= books.cost, `treasury ${books.treasury} against cost ${books.cost}`).to.equal(true);
    } finally {
      await facilitator.stop();
    }
  });

  it("off (the default), settles an exact payment below that floor, as stock x402 clients expect", async function () {
    const cheap = await chain.registerResource({ slug: "cheap-default", cap: 10_000n });
    const least = await exactFloorAtTestNetworkFee();
    const facilitator = await startFacilitator(chain);
    try {
      expect((await verify(facilitator.url, cheap, least - 1n)).body).to.include({ isValid: true });
    } finally {
      await facilitator.stop();
    }
  });
});
