import { expect } from "chai";
import { bitmapNonce } from "../../protocol/bitmapNonce.ts";
import { BASE_FEE_FLOOR_WEI, SETTLEMENT_GAS_PER_DEBIT, SETTLEMENT_MARGIN_BPS } from "../../protocol/constants.ts";
import { priceFloor } from "../../protocol/priceFloor.ts";
import { BATCH_DEFAULTS, facilitatorEnvSchema } from "../loadFacilitatorConfig.ts";
import type { DebitItem } from "./debitItem.ts";
import type { HoldCandidate, HoldSettings } from "./holdPolicy.ts";
import { batchEconomics, EXPECTED_BATCH_BASE_GAS, expectedBatchGas, holdVerdict, pays } from "./holdPolicy.ts";

const GWEI = 1_000_000_000n;
/** 21 gwei a gas (the test network's 20 gwei floor and a 1 gwei tip); the escrow takes 5%. */
const FEE = { gasPriceWei: 21n * GWEI, feeBps: 500 };
const SETTINGS: HoldSettings = { marginBps: 2_000, longestHoldSeconds: 600, deadlineMarginSeconds: 60 };
const NOW = 1_000_000;

/** A key-signed debit of `amount` (compact encoding, bitmap nonce `nonce`) valid until `validBefore`. */
function debit(amount: bigint, validBefore = NOW + 3_000, nonce = 1): DebitItem {
  return {
    authorization: {
      buyer: "0x00000000000000000000000000000000000000b1",
      resourceId: `0x${"11".repeat(32)}`,
      maxAmount: amount,
      validAfter: 0n,
      validBefore: BigInt(validBefore),
      nonce: bitmapNonce(nonce),
    },
    amount,
    signature: `0x${"22".repeat(32)}${"33".repeat(32)}1b`,
  };
}

const held = (item: DebitItem, queuedAt = NOW): HoldCandidate => ({ item, mayHold: true, queuedAt });
const verdict = (queued: HoldCandidate[], fee: typeof FEE | undefined = FEE, now = NOW) =>
  holdVerdict({ batch: queued, queued, fee, settings: SETTINGS, now });

describe("holdPolicy: a batch of committed debits is sent when it pays for itself", function () {
  it("expects the price floor's gas per key-signed debit on top of the batch's own", function () {
    expect(expectedBatchGas([debit(1n)])).to.equal(EXPECTED_BATCH_BASE_GAS + 16_000n);
    const random = debit(1n);
    random.authorization.nonce = `0x${"44".repeat(32)}`;
    expect(expectedBatchGas([random]), "a random nonce spends a slot of its own").to.equal(
      EXPECTED_BATCH_BASE_GAS + 16_000n + 22_100n,
    );
    // 67,000 gas at 21 gwei is 1,407 base units; 5% of 20,000 is 1,000.
    expect(batchEconomics([debit(20_000n)], FEE)).to.deep.equal({
      treasuryUnits: 1_000n,
      costUnits: 1_407n,
      marginUnits: -407n,
    });
  });

  it("holds a debit whose batch would lose, and sends once enough have joined it to pay with the margin", function () {
    const one = verdict([held(debit(20_000n, NOW + 3_000, 1))]);
    expect(one.send).to.equal(false);
    // Two: 2,000 against 83,000 gas (1,743, 2,092 with the margin); three: 3,000 against 2,495.
    expect(verdict([1, 2].map((n) => held(debit(20_000n, NOW + 3_000, n)))).send).to.equal(false);
    expect(verdict([1, 2, 3].map((n) => held(debit(20_000n, NOW + 3_000, n))))).to.deep.equal({
      send: true,
      reason: "pays",
    });
  });

  it("lets a batch of debits charged at the price floor pay with the facilitator's default margin", function () {
    // The listing's price carries the operator's margin (the floor's); the hold asking for it again over the batch's
    // own gas found no batch that pays, and every debit waited for the longest hold (npm run economics).
    const { minimumBase } = priceFloor({
      gasPerDebit: SETTLEMENT_GAS_PER_DEBIT,
      baseFeeWei: BASE_FEE_FLOOR_WEI,
      feeBps: FEE.feeBps,
      marginBps: SETTLEMENT_MARGIN_BPS,
    });
    const smallestPaying = (marginBps: number) => {
      for (let size = 1; size <= BATCH_DEFAULTS.committed.maxItems; size++) {
        const batch = Array.from({ length: size }, (_, i) => debit(minimumBase, NOW + 3_000, i + 1));
        if (pays(batchEconomics(batch, FEE), marginBps)) return size;
      }
      return undefined;
    };
    expect(smallestPaying(facilitatorEnvSchema.shape.HOLD_MARGIN_BPS.parse(undefined))).to.be.within(2, 32);
    expect(smallestPaying(SETTLEMENT_MARGIN_BPS)).to.equal(undefined);
  });

  it("holds while the fee is high and sends when it falls", function () {
    const queued = [held(debit(50_000n))];
    expect(verdict(queued, { ...FEE, gasPriceWei: 200n * GWEI }).send).to.equal(false);
    expect(verdict(queued)).to.deep.equal({ send: true, reason: "pays" });
  });

  it("sends a held debit at its deadline, and after the longest hold, as forced", function () {
    const expiring = [held(debit(1_000n, NOW + 60))];
    expect(verdict(expiring)).to.deep.equal({ send: true, reason: "deadline" });
    expect(verdict([held(debit(1_000n, NOW + 61))])).to.deep.include({ send: false });
    const old = [held(debit(1_000n), NOW - 600)];
    expect(verdict(old)).to.deep.equal({ send: true, reason: "longest_hold" });
  });

  it("looks again no later than the next deadline, and at least every second", function () {
    expect(verdict([held(debit(1_000n, NOW + 61))], FEE, NOW + 0.75)).to.deep.equal({ send: false, recheckMs: 250 });
    expect(verdict([held(debit(1_000n))])).to.deep.equal({ send: false, recheckMs: 1_000 });
  });

  it("sends at once what may not wait, and holds before the fee is known", function () {
    const awaited: HoldCandidate = { item: debit(1_000n, NOW + 3_000, 2), mayHold: false, queuedAt: NOW };
    expect(verdict([held(debit(1_000n)), awaited])).to.deep.equal({ send: true, reason: "urgent" });
    const unknownFee = [held(debit(1_000_000n))];
    expect(
      holdVerdict({ batch: unknownFee, queued: unknownFee, fee: undefined, settings: SETTINGS, now: NOW }).send,
    ).to.equal(false);
  });
});
