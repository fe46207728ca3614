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
import { RESERVATION_MARGIN_SECONDS } from "../verifyPayment.ts";

const CAP = 50_000n;
/** The window the gates ask for by default, less the buyer SDK's clock margin. */
const HOUR_WINDOW = 3_570;
/** What the harness's gate passes to verify as `maxTimeoutSeconds`. */
const CALL_TIMEOUT = 30;

/** Brings a manual clock to the wall clock the harness signs by (a slow start leaves it behind). */
const syncToWallClock = (clock: ReturnType<typeof manualClock>) =>
  clock.advance(Math.floor(Date.now() / 1000) - clock.now());

/**
 * A gate asks for an hour-long authorization so that the committed debit can be held until its batch pays. Without
 * the bound, a reservation lasted until the authorization's `validBefore`: a call whose gate never settled it (a crash,
 * a gate that verifies and walks away) kept the buyer's funds reserved for an hour instead of the call's timeout.
 */
describe("attack: a long authorization window keeps a buyer's funds reserved for a call never settled", function () {
  let chain: LocalChain;
  let resourceId: Hex;
  const poorBuyer = privateKeyToAccount(devKey(ROLE.other));
  let poor: ReturnType<typeof committedHarness>;
  let nextIndex = 2 ** 30;
  const nextNonce = () => bitmapNonce(nextIndex++);

  before(async function () {
    chain = await startLocalChain();
    resourceId = await chain.registerResource({ slug: "echo", cap: CAP, base: 8_000n });
    await chain.fundBuyer(ROLE.other, CAP);
    poor = committedHarness({ chain, buyer: poorBuyer, resourceId, cap: CAP });
  });

  after(async function () {
    await chain?.close();
  });

  it("an hour-long authorization holds the buyer's funds no longer than the call's timeout and margin", async function () {
    const clock = manualClock();
    const facilitator = await startFacilitator(chain, { clock, env: { SETTLEMENT: "committed" } });
    try {
      syncToWallClock(clock);
      const start = clock.now();
      const first = await poor.sign({ validForSeconds: HOUR_WINDOW, nonce: nextNonce() });
      const verified = await poor.verify(facilitator.url, first);
      expect(verified.body.isValid).to.equal(true);
      const expiresAt = Date.parse(verified.body.expiresAt) / 1000;
      expect(expiresAt).to.equal(start + CALL_TIMEOUT + RESERVATION_MARGIN_SECONDS);
      const second = await poor.sign({ validForSeconds: HOUR_WINDOW, nonce: nextNonce() });
      expect((await poor.verify(facilitator.url, second)).body).to.include({
        isValid: false,
        invalidReason: "insufficient_balance",
      });

      clock.advance(CALL_TIMEOUT + RESERVATION_MARGIN_SECONDS);
      await until(
        async () => ((await poor.verify(facilitator.url, second)).body.isValid === true ? true : undefined),
        20_000,
        "the first reservation expired and its funds reserved for the second",
      );
      const late = await poor.settle(facilitator.url, first, 10_000n);
      expect(late.status, "a settle after the reservation's end charges nothing").to.equal(409);
      expect((await getJson(`${facilitator.url}/results/${first.authorization.nonce}`)).status).to.equal(404);
      // Its authorization is still valid for most of the hour: replayed, it reserves nothing again (the expired row
      // keeps its nonce until the window closes), so no second call runs on one signature.
      expect((await poor.verify(facilitator.url, first)).body).to.include({
        isValid: false,
        invalidReason: "nonce_used",
      });
    } finally {
      await facilitator.stop();
    }
  });

  it("a committed debit held past its reservation's end is still the buyer's to pay: it stays committed, held", async function () {
    const clock = manualClock();
    await chain.setBaseFee(BASE_FEE_FLOOR_WEI);
    const holding = { SETTLEMENT: "committed", HOLD_MAX_SECONDS: "3600", HOLD_MARGIN_BPS: "2000" };
    const facilitator = await startFacilitator(chain, { clock, env: holding });
    try {
      syncToWallClock(clock);
      const { payload, settled } = await poor.pay(facilitator.url, 8_000n, {
        validForSeconds: HOUR_WINDOW,
        nonce: nextNonce(),
      });
      expect(settled.body).to.include({ status: "committed" });
      const nonce = payload.authorization.nonce;
      const held = async () => (await getJson(`${facilitator.url}/results/${nonce}`)).body;
      await until(async () => ((await held()).held === true ? true : undefined));
      clock.advance(CALL_TIMEOUT + RESERVATION_MARGIN_SECONDS + 600);
      // A background pass runs every 100 ms: several have run once a verify has seen the book catch up.
      const next = await poor.sign({ validForSeconds: HOUR_WINDOW, nonce: nextNonce() });
      await until(async () => ((await poor.verify(facilitator.url, next)).status === 200 ? true : undefined));
      expect(await held()).to.include({ settlement: "committed", held: true });
      expect(await poor.debitsOf(nonce)).to.have.length(0);
    } finally {
      await facilitator.stop();
    }
  });
});
