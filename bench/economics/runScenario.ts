import type { Hex, LocalAccount } from "viem";
import { signEscrowPayment, signExactPayment } from "../../services/buyer/src/sdk/signPayment.ts";
import type { Facilitator } from "../../services/facilitator/createFacilitator.ts";
import { pays } from "../../services/facilitator/relayer/holdPolicy.ts";
import { bitmapNonce } from "../../services/protocol/bitmapNonce.ts";
import { MAX_AUTHORIZATION_SECONDS } from "../../services/protocol/constants.ts";
import { randomNonce } from "../../services/protocol/resourceId.ts";
import type { Books } from "../../testkit/facilitator/readBooks.ts";
import { readBooks } from "../../testkit/facilitator/readBooks.ts";
import { getJson, manualClock, postJson, startFacilitator } from "../../testkit/facilitator/startFacilitator.ts";
import { sleep } from "../../testkit/sleep.ts";
import type { EconomicsChain } from "./startEconomicsChain.ts";

/** How a buyer pays: escrow debits of bitmap nonces (the SDK), of random nonces (a generic client), or `exact`. */
export type PaymentKind = "bitmap" | "random" | "exact";

/** One scenario: who pays what, how often, for which listing. */
export type Scenario = {
  kind: PaymentKind;
  buyers: LocalAccount[];
  resourceId: Hex;
  /** The listing's cap: what an escrow payment signs as its most. */
  cap: bigint;
  /** What a successful call is charged (escrow); an `exact` payment pays its quote instead. */
  charge: bigint;
  calls: number;
  /** Seconds after the start at which call `i` arrives (the simulated clock). */
  arrivalAt: (i: number) => number;
};

/** The facilitator's hold settings the scenarios run with (docs/protocol.md, "Held debits"). */
export type HoldEnv = { HOLD_MAX_SECONDS: string; HOLD_MARGIN_BPS: string; HOLD_DEADLINE_MARGIN_SECONDS: string };

/** Forced sends by reason, from `/metrics` (`facilitator_forced_*`). */
export type ForcedSends = Record<"deadline" | "longest_hold", { batches: number; debits: number; lossUnits: number }>;

export type ScenarioResult = {
  calls: number;
  refused: number;
  /** The first refusal, as verify said it. */
  refusal?: string;
  books: Books;
  /** Simulated seconds each accepted escrow debit was held before its batch went out (none for `exact`). */
  heldSeconds: number[];
  /** What the facilitator's own histogram says of the same holds: count and sum. */
  holdHistogram: { count: number; sum: number };
  forced: ForcedSends;
  /** The `exact` quote paid, when the scenario pays `exact`. */
  exactAmount?: bigint;
  /** Simulated seconds the scenario spanned, last send included. */
  spanSeconds: number;
};

/** Most real time the relayer's queue takes to look at held debits again (HOLD_RECHECK_MS) and cut, with slack. */
const CUT_WAIT_MS = 5_000;

/**
 * Runs one scenario against a new in-process facilitator (committed settlement, holding on) whose clock the bench
 * moves: each call arrives at its simulated time (the chain's next block dated alike), is verified and settled; the
 * relayer's hold policy decides when batches go. Between arrivals the clock jumps straight to the next moment a held
 * debit must go (the longest hold or a deadline, from the oldest held debit) and waits for the relayer to send it; a
 * batch that pays for itself (holdPolicy's `pays`, on what the relayer holds) is awaited as it forms. Once the last
 * call is in, the clock runs on until nothing is held, and the books are read once every debit is mined.
 * @example const result = await runScenario({ chain, scenario, hold, log })
 */
export async function runScenario(p: {
  chain: EconomicsChain;
  scenario: Scenario;
  hold: HoldEnv;
  batchMaxItems: number;
  log: (line: string) => void;
}): Promise<ScenarioResult> {
  const { chain, scenario: s } = p;
  const start = (await chain.now()) + 1;
  const clock = manualClock(start);
  const facilitator = await startFacilitator(chain, {
    clock,
    env: {
      SETTLEMENT: "committed",
      BATCH_MAX_ITEMS: String(p.batchMaxItems),
      ...p.hold,
      LOG_LEVEL: process.env.ECONOMICS_LOG_LEVEL ?? "silent",
    },
  });
  const holdLimit = Math.min(
    Number(p.hold.HOLD_MAX_SECONDS),
    MAX_AUTHORIZATION_SECONDS - Number(p.hold.HOLD_DEADLINE_MARGIN_SECONDS),
  );
  const marginBps = Number(p.hold.HOLD_MARGIN_BPS);
  const relayer = facilitator.ctx.relayer;
  /** Escrow debits settled and not seen sent yet: when each arrived. */
  const pending = new Map<string, { buyer: Hex; nonce: Hex; at: number }>();
  const heldSeconds: number[] = [];
  /** Debits the relayer has sent and may still be mining. */
  const sent: { buyer: Hex; nonce: Hex }[] = [];
  const nextIndex = new Map<string, number>();
  let refused = 0;
  let refusal: string | undefined;
  let accepted = 0;
  let exactAmount: bigint | undefined;

  /** Moves both clocks to `to`, once every batch sent is mined: a later date must not fall on a batch still in flight. */
  async function jump(to: number): Promise<void> {
    await mined();
    if (to > clock.now()) clock.advance(to - clock.now());
    await chain.moveClockTo(to);
  }

  /** Records, at the clock's time, every settled debit the relayer no longer holds. */
  function sweep(): void {
    for (const [key, d] of pending) {
      if (relayer.holding(d.buyer, d.nonce)) continue;
      heldSeconds.push(clock.now() - d.at);
      pending.delete(key);
      sent.push(d);
    }
  }

  /** Waits until the relayer is done with every debit it has sent (mined, or refused for good). */
  async function mined(): Promise<void> {
    for (const until = Date.now() + 60_000; sent.some((d) => relayer.debiting(d.buyer, d.nonce)); await sleep(10))
      if (Date.now() > until) throw new Error("the relayer's batches were not mined within 60 s");
    sent.length = 0;
  }

  /** Waits until the relayer holds fewer than `before` debits; false if it has not within `ms`. */
  async function cut(before: number, ms = CUT_WAIT_MS): Promise<boolean> {
    for (const until = Date.now() + ms; Date.now() < until; await sleep(20)) {
      if ((await relayer.heldDebits()).debits < before) {
        sweep();
        return true;
      }
    }
    return false;
  }

  /** Moves the clock to `to`, stopping on the way at each moment a held debit must go, until it has gone. */
  async function advanceTo(to: number): Promise<void> {
    for (;;) {
      const held = await relayer.heldDebits();
      if (held.debits === 0 || held.oldestAt === null || held.oldestAt + holdLimit > to) break;
      await jump(held.oldestAt + holdLimit);
      if (!(await cut(held.debits)))
        throw new Error(`the relayer did not send its held debits at ${held.oldestAt + holdLimit - start} s`);
    }
    await jump(to);
  }

  async function pay(buyer: LocalAccount, at: number): Promise<void> {
    const validBefore = BigInt(at + MAX_AUTHORIZATION_SECONDS);
    if (s.kind === "exact") {
      exactAmount ??= await exactQuote(facilitator, s.cap);
      const payload = await signExactPayment({
        account: buyer,
        token: chain.addresses.token,
        escrow: chain.addresses.escrow,
        value: exactAmount,
        validBefore,
        resourceId: s.resourceId,
      });
      if (!(await verified(payload))) return;
      await settle(payload.authorization.nonce, buyer.address, exactAmount, "mined");
      return;
    }
    const index = nextIndex.get(buyer.address) ?? 0;
    nextIndex.set(buyer.address, index + 1);
    const nonce = s.kind === "bitmap" ? bitmapNonce(index) : randomNonce();
    const payload = await signEscrowPayment({
      account: buyer,
      escrow: chain.addresses.escrow,
      resourceId: s.resourceId,
      maxAmount: s.cap,
      validBefore,
      nonce,
    });
    if (!(await verified(payload))) return;
    await settle(nonce, buyer.address, s.charge, "committed");
    const key = `${buyer.address}:${nonce}`;
    pending.set(key, { buyer: buyer.address, nonce, at });
    // The settle hands its debit to the relayer in the background: wait until the relayer has it.
    for (let tries = 0; tries < 50 && !relayer.debiting(buyer.address, nonce); tries++) await sleep(2);
  }

  async function verified(payload: unknown): Promise<boolean> {
    const r = await postJson(`${facilitator.url}/verify`, {
      paymentPayload: payload,
      resourceId: s.resourceId,
      maxTimeoutSeconds: 60,
    });
    if (r.body.isValid === true) return true;
    if (r.body.isValid !== false) throw new Error(`verify answered ${r.status}: ${JSON.stringify(r.body)}`);
    refused++;
    refusal ??= `${r.body.invalidReason}: ${r.body.invalidMessage}`;
    return false;
  }

  async function settle(nonce: Hex, payer: Hex, amount: bigint, expected: "committed" | "mined"): Promise<void> {
    const r = await postJson(`${facilitator.url}/settle`, {
      idemKey: nonce,
      // Bitmap nonces repeat across buyers, so an idemKey is named with its payer.
      payer,
      resourceId: s.resourceId,
      amount: amount.toString(),
      response: { status: 200, contentType: "application/json", body: { ok: true } },
    });
    // A committed settle says so; an exact one answers once its transaction is mined, naming it.
    const answered = expected === "committed" ? r.body.status === "committed" : typeof r.body.transaction === "string";
    if (r.status !== 200 || !answered) throw new Error(`settle answered ${r.status}: ${JSON.stringify(r.body)}`);
    accepted++;
  }

  try {
    for (let i = 0; i < s.calls; i++) {
      const at = start + s.arrivalAt(i);
      await advanceTo(at);
      await pay(s.buyers[i % s.buyers.length] as LocalAccount, at);
      const held = await relayer.heldDebits();
      // Homogeneous debits: when the queue's head batch (at most batchMaxItems of them) would pay, so would these.
      if (held.debits > 0 && held.debits <= p.batchMaxItems && held.economics && pays(held.economics, marginBps))
        await cut(held.debits);
      sweep();
      if ((i + 1) % 50 === 0) p.log(`  ${i + 1} of ${s.calls} calls, ${clock.now() - start} s simulated`);
    }
    for (let held = await relayer.heldDebits(); held.oldestAt !== null; held = await relayer.heldDebits())
      await advanceTo(held.oldestAt + holdLimit);
    sweep();
    await mined();
    const books = await booksOnceMined(facilitator.url, accepted);
    const metrics = (await getJson(`${facilitator.url}/metrics`)).body as string;
    return {
      calls: s.calls,
      refused,
      ...(refusal ? { refusal } : {}),
      books,
      heldSeconds,
      holdHistogram: {
        count: series(metrics, "facilitator_debit_hold_seconds_count"),
        sum: series(metrics, "facilitator_debit_hold_seconds_sum"),
      },
      forced: forcedSends(metrics),
      ...(exactAmount !== undefined ? { exactAmount } : {}),
      spanSeconds: clock.now() - start,
    };
  } finally {
    await facilitator.stop();
  }
}

/** The `exact` amount a gate quotes: the listing's cap, raised to the facilitator's `GET /pricing/exact` minimum. */
async function exactQuote(facilitator: Facilitator, cap: bigint): Promise<bigint> {
  const r = await getJson(`${facilitator.url}/pricing/exact`);
  if (r.status !== 200) throw new Error(`GET /pricing/exact answered ${r.status}: ${JSON.stringify(r.body)}`);
  const minimum = BigInt(r.body.minimumAmount);
  return minimum > cap ? minimum : cap;
}

/** The relayer's books once they count `debits` debits (each settled call's, mined and recorded). */
async function booksOnceMined(url: string, debits: number): Promise<Books> {
  for (const until = Date.now() + 60_000; ; await sleep(50)) {
    const books = await readBooks(url);
    if (books.debits >= BigInt(debits)) return books;
    if (Date.now() > until) throw new Error(`the books show ${books.debits} of ${debits} debits`);
  }
}

/** One series of a `/metrics` text, 0 when absent. */
function series(metrics: string, name: string): number {
  const escaped = name.replace(/[{}"=]/g, (c) => `\\${c}`);
  return Number(new RegExp(`^${escaped} (\\S+)$`, "m").exec(metrics)?.[1] ?? 0);
}

function forcedSends(metrics: string): ForcedSends {
  const of = (reason: string) => ({
    batches: series(metrics, `facilitator_forced_batches_total{reason="${reason}"}`),
    debits: series(metrics, `facilitator_forced_debits_total{reason="${reason}"}`),
    lossUnits: series(metrics, `facilitator_forced_loss_units_total{reason="${reason}"}`),
  });
  return { deadline: of("deadline"), longest_hold: of("longest_hold") };
}
