import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "chai";
import type { Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import type { LocalChain } from "../../../testkit/chain/localChain.ts";
import { devKey, ROLE, startLocalChain } from "../../../testkit/chain/localChain.ts";
import { committedHarness } from "../../../testkit/facilitator/committedHarness.ts";
import { getJson, manualClock, startFacilitator } from "../../../testkit/facilitator/startFacilitator.ts";
import { until } from "../../../testkit/until.ts";
import { bitmapNonce } from "../../protocol/bitmapNonce.ts";
import { BASE_FEE_FLOOR_WEI } from "../../protocol/constants.ts";
import type { Facilitator } from "../createFacilitator.ts";

const CAP = 50_000n;
/** Committed settlement holding debits until their batch pays, for an hour at most, as shipped. */
const HOLDING = {
  SETTLEMENT: "committed",
  HOLD_MAX_SECONDS: "3600",
  HOLD_MARGIN_BPS: "2000",
  HOLD_DEADLINE_MARGIN_SECONDS: "60",
};
/**
 * At the 20 gwei floor (and the node's tip), one debit of 20,000 of a bitmap nonce pays the treasury 1,000 (5%)
 * against about 1,400 of gas: it loses alone and with a second, and three pay with the margin (holdPolicy.test.ts).
 */
const SMALL = 20_000n;
/**
 * Verify refuses a payment for a listing whose base price no longer covers a debit at the current fee (7,680 for a
 * bitmap nonce at the floor): "echo" is priced above the floor, "spiky" above ten times the floor, with a cap that
 * holds it, so a payment at a tenfold fee is verified and its debit (treasury 4,000) loses against about 13,400 of gas.
 */
const ECHO_BASE = 8_000n;
const SPIKY = { cap: 200_000n, base: 80_000n };

describe("held debits: committed debits wait until their batch pays for itself", function () {
  let chain: LocalChain;
  let resourceId: Hex;
  let h: ReturnType<typeof committedHarness>;
  let spiky: ReturnType<typeof committedHarness>;
  const buyer = privateKeyToAccount(devKey(ROLE.buyer));
  /** The buyer's next bitmap nonce: consecutive payments share a word, as the SDK's do. */
  let nextIndex = 2 ** 31;
  const nextNonce = () => ({ nonce: bitmapNonce(nextIndex++) });

  before(async function () {
    chain = await startLocalChain();
    resourceId = await chain.registerResource({ slug: "echo", cap: CAP, base: ECHO_BASE });
    const spikyId = await chain.registerResource({ slug: "spiky", ...SPIKY });
    await chain.fundBuyer(ROLE.buyer, 10_000_000n);
    h = committedHarness({ chain, buyer, resourceId, cap: CAP });
    spiky = committedHarness({ chain, buyer, resourceId: spikyId, cap: SPIKY.cap });
  });

  beforeEach(async function () {
    await chain.setBaseFee(BASE_FEE_FLOOR_WEI);
  });

  after(async function () {
    await chain?.close();
  });

  /** A series of the facilitator's /metrics (0 when absent). */
  async function metric(facilitator: Facilitator, series: string): Promise<number> {
    const text = (await getJson(`${facilitator.url}/metrics`)).body as string;
    const escaped = series.replace(/[{}"=]/g, (c) => `\\${c}`);
    return Number(new RegExp(`^${escaped} (\\S+)$`, "m").exec(text)?.[1] ?? 0);
  }

  /** Waits until `/results` says the relayer holds this debit. */
  const heldNow = (facilitator: Facilitator, nonce: Hex) =>
    until(async () => ((await getJson(`${facilitator.url}/results/${nonce}`)).body.held === true ? true : undefined));

  /** The book the store kept of a settlement transaction. */
  async function bookOf(facilitator: Facilitator, transaction: Hex) {
    const rows = await facilitator.ctx.store.query<{
      forced: string | null;
      cost_units: string;
      treasury_units: string;
    }>("SELECT forced, cost_units::text, treasury_units::text FROM settlement_book WHERE transaction = $1", [
      transaction.toLowerCase(),
    ]);
    return rows[0];
  }

  it("holds debits whose batch would lose, then sends them together once one more makes it pay", async function () {
    const facilitator = await startFacilitator(chain, { env: HOLDING });
    try {
      const first = await h.pay(facilitator.url, SMALL, nextNonce());
      const second = await h.pay(facilitator.url, SMALL, nextNonce());
      expect(first.settled.body).to.include({ status: "committed" });
      const nonces = [first.payload.authorization.nonce, second.payload.authorization.nonce];
      for (const nonce of nonces) await heldNow(facilitator, nonce);
      expect(await metric(facilitator, "facilitator_held_debits")).to.equal(2);
      // 2,000 to the treasury against about 1,700 of gas: short of the 20% margin.
      expect(await metric(facilitator, "facilitator_held_expected_margin_units")).to.be.within(1, 399);
      for (const nonce of nonces) expect(await h.debitsOf(nonce)).to.have.length(0);

      const third = await h.pay(facilitator.url, SMALL, nextNonce());
      nonces.push(third.payload.authorization.nonce);
      const results = [];
      for (const nonce of nonces) results.push(await h.resultWhen(facilitator.url, nonce, "confirmed"));
      const transactions = new Set(results.map((r) => r.decoded.transaction));
      expect(transactions.size, "the three debits went out in one transaction").to.equal(1);
      const book = await until(() => bookOf(facilitator, [...transactions][0] as Hex));
      expect(book.forced).to.equal(null);
      expect(Number(book.treasury_units)).to.be.at.least(Number(book.cost_units));
      expect(await metric(facilitator, "facilitator_held_debits")).to.equal(0);
    } finally {
      await facilitator.stop();
    }
  });

  it("sends a held debit at its deadline, at a loss, and books the send as forced", async function () {
    const clock = manualClock();
    const facilitator = await startFacilitator(chain, { env: HOLDING, clock });
    try {
      const { payload } = await h.pay(facilitator.url, SMALL, { validForSeconds: 600, ...nextNonce() });
      const nonce = payload.authorization.nonce;
      await heldNow(facilitator, nonce);
      // The facilitator's clock reaches the debit's deadline: its validBefore less the 60 s kept for mining.
      clock.advance(Number(payload.authorization.validBefore) - 60 - clock.now());
      const confirmed = await h.resultWhen(facilitator.url, nonce, "confirmed");
      expect(await h.debitsOf(nonce)).to.have.length(1);
      const book = await until(() => bookOf(facilitator, confirmed.decoded.transaction as Hex));
      expect(book.forced).to.equal("deadline");
      expect(Number(book.cost_units)).to.be.above(Number(book.treasury_units));
      expect(await metric(facilitator, 'facilitator_forced_batches_total{reason="deadline"}')).to.equal(1);
      expect(await metric(facilitator, 'facilitator_forced_debits_total{reason="deadline"}')).to.equal(1);
      expect(await metric(facilitator, 'facilitator_forced_loss_units_total{reason="deadline"}')).to.equal(
        Number(book.cost_units) - Number(book.treasury_units),
      );
    } finally {
      await facilitator.stop();
    }
  });

  it("a base-fee spike does not make the relayer send at a loss before a deadline: it waits for the fee to fall", async function () {
    const facilitator = await startFacilitator(chain, { env: HOLDING });
    try {
      // At the floor one debit of 80,000 pays for its own batch; at ten times the floor it would lose.
      await chain.setBaseFee(BASE_FEE_FLOOR_WEI * 10n);
      const { payload } = await spiky.pay(facilitator.url, SPIKY.base, nextNonce());
      const nonce = payload.authorization.nonce;
      await heldNow(facilitator, nonce);
      expect(await spiky.debitsOf(nonce)).to.have.length(0);

      await chain.setBaseFee(BASE_FEE_FLOOR_WEI);
      const confirmed = await spiky.resultWhen(facilitator.url, nonce, "confirmed");
      const book = await until(() => bookOf(facilitator, confirmed.decoded.transaction as Hex));
      expect(book.forced).to.equal(null);
      expect(Number(book.treasury_units), "the treasury's share paid for the batch").to.be.at.least(
        Number(book.cost_units),
      );
      expect(await metric(facilitator, 'facilitator_forced_batches_total{reason="deadline"}')).to.equal(0);
    } finally {
      await facilitator.stop();
    }
  });

  it("a stop sends no held debit at a loss: it is handed back, and the next start sends it once", async function () {
    const dataDir = mkdtempSync(join(tmpdir(), "held-stop-"));
    try {
      const first = await startFacilitator(chain, { env: { ...HOLDING, DATA_DIR: dataDir } });
      let nonce: Hex;
      try {
        nonce = (await h.pay(first.url, SMALL, nextNonce())).payload.authorization.nonce;
        await heldNow(first, nonce);
      } finally {
        await first.stop();
      }
      expect(await h.debitsOf(nonce), "the stop sent nothing").to.have.length(0);

      const second = await startFacilitator(chain, { env: { ...HOLDING, DATA_DIR: dataDir, HOLD_MAX_SECONDS: "0" } });
      try {
        await h.resultWhen(second.url, nonce, "confirmed");
        expect(await h.debitsOf(nonce)).to.have.length(1);
      } finally {
        await second.stop();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
