import type { Hex, LocalAccount } from "viem";
import { formatUnits, parseGwei } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { BATCH_DEFAULTS, facilitatorEnvSchema } from "../services/facilitator/loadFacilitatorConfig.ts";
import { EXPECTED_BATCH_BASE_GAS } from "../services/facilitator/relayer/holdPolicy.ts";
import {
  MAX_AUTHORIZATION_SECONDS,
  SETTLEMENT_GAS_PER_DEBIT,
  SETTLEMENT_MARGIN_BPS,
} from "../services/protocol/constants.ts";
import { expectedDebitGas } from "../services/protocol/expectedDebitGas.ts";
import { gasCostInTokenUnits } from "../services/protocol/gasCostInTokenUnits.ts";
import { meteredPrice } from "../services/protocol/price.ts";
import { priceFloor } from "../services/protocol/priceFloor.ts";
import { randomNonce } from "../services/protocol/resourceId.ts";
import { parseCommandLine } from "../services/stack/parseCommandLine.ts";
import { suggestPrice } from "../services/studio/suggestPrice.ts";
import { envCount } from "./benchEnv.ts";
import { machineLine, writeBenchSection } from "./benchReport.ts";
import type { HoldEnv, PaymentKind, ScenarioResult } from "./economics/runScenario.ts";
import { runScenario } from "./economics/runScenario.ts";
import type { ListingTerms } from "./economics/startEconomicsChain.ts";
import { startEconomicsChain } from "./economics/startEconomicsChain.ts";

const USAGE = `usage: npm run economics

What settling paid calls costs the relayer and earns the treasury, on the chain the stack runs (the embedded EDR chain
of npm start, base fee held at the test network's 20 gwei floor, then at 40 gwei), under traffic: one call a minute,
one a second and 100 a second; one buyer and many; buyers signing bitmap nonces (the buyer SDK), random nonces (a
generic client) and exact payments. Each scenario runs a new in-process facilitator with committed settlement and
holding on (HOLD_MAX_SECONDS=3000) on a simulated clock the bench moves, so an hour of traffic takes seconds; payments
are signed with one-hour windows. Listings are priced as the studio prices them at publish (the price floor at 20 gwei);
at 40 gwei verify refuses those, and a listing re-priced for 40 gwei runs the traffic again. Per scenario: calls,
refused, debits per transaction, margin per call (treasury income less gas, from the relayer's books), held time p50
and p99, and forced sends with their loss. Prints the table and writes the "Economics" section of docs/benchmarks.md.
Environment: ECONOMICS_CALLS (120 calls per scenario), ECONOMICS_BUYERS (30: "many buyers").`;
parseCommandLine(USAGE, {});

const CALLS = envCount("ECONOMICS_CALLS", 120);
const MANY = envCount("ECONOMICS_BUYERS", 30, 2);
/** Holding as an operator who turns it on would run it: an hour's windows, 50 minutes' longest hold, the defaults else. */
const HOLD: HoldEnv = {
  HOLD_MAX_SECONDS: "3000",
  HOLD_MARGIN_BPS: String(facilitatorEnvSchema.shape.HOLD_MARGIN_BPS.parse(undefined)),
  HOLD_DEADLINE_MARGIN_SECONDS: String(facilitatorEnvSchema.shape.HOLD_DEADLINE_MARGIN_SECONDS.parse(undefined)),
};
const BATCH_MAX_ITEMS = BATCH_DEFAULTS.committed.maxItems;
const RESPONSE_BYTES = 512;
const FEES = [parseGwei("20"), parseGwei("40")] as const;
const RATES = {
  "1/min": (i: number) => 60 * i,
  "1/s": (i: number) => i,
  "100/s": (i: number) => Math.floor(i / 100),
} as const;
type Rate = keyof typeof RATES;
const log = (line: string) => process.stderr.write(`[economics] ${line}\n`);

/** A listing as priced for one base fee and one kind of nonce: what the studio suggests, raised to the price floor. */
type Listing = { label: string; terms: ListingTerms; charge: bigint; resourceId?: Hex };
/** One row to run: a fee, a listing, a kind of payment, a rate and how many buyers. */
type Plan = { feeWei: bigint; listing: Listing; kind: PaymentKind; rate: Rate; buyers: number; note?: string };

log("starting the embedded chain and deploying the contracts");
const chain = await startEconomicsChain();
const rows: { plan: Plan; result: ScenarioResult }[] = [];
const feeChecks: { feeWei: bigint; blocks: number; lowest: bigint; highest: bigint }[] = [];
let feeBps = 0;
let tipWei = 0n;
try {
  feeBps = await chain.feeBps();
  tipWei = await chain.publicClient.estimateMaxPriorityFeePerGas();
  const listings = new Map<string, Listing>();
  /** The listing a creator publishes when the base fee is `feeWei`, priced for bitmap nonces or (`random`) any nonce. */
  const listing = (feeWei: bigint, forRandom = false): Listing => {
    const key = `${feeWei}:${forRandom}`;
    const known = listings.get(key);
    if (known) return known;
    const gasPerDebit = forRandom ? expectedDebitGas(randomNonce()) : SETTLEMENT_GAS_PER_DEBIT;
    const floor = priceFloor({ gasPerDebit, baseFeeWei: feeWei, feeBps, marginBps: SETTLEMENT_MARGIN_BPS });
    const price = suggestPrice({ maxResponseBytes: 1024, minimumBase: floor.minimumBase });
    const terms = { base: BigInt(price.base), perKB: BigInt(price.perKB), max: BigInt(price.max) };
    const charge = meteredPrice({ ...terms, cap: terms.max, computeMultiplier: 1, responseBytes: RESPONSE_BYTES });
    const made = { label: `${forRandom ? "random-nonce " : ""}floor at ${gwei(feeWei)}`, terms, charge };
    listings.set(key, made);
    return made;
  };

  for (const feeWei of FEES) {
    await chain.pinBaseFee(feeWei);
    const fromBlock = await chain.publicClient.getBlockNumber();
    for (const plan of plansAt(feeWei, listing)) {
      plan.listing.resourceId ??= await chain.registerListing(`economics-${rows.length}`, plan.listing.terms);
      log(
        `${gwei(feeWei)}, ${plan.listing.label} listing, ${plan.kind} payments, ${plan.rate}, ${plan.buyers} buyer(s): ${CALLS} calls`,
      );
      const started = Date.now();
      const buyers = await fundedBuyers(plan);
      const result = await runScenario({
        chain,
        hold: HOLD,
        batchMaxItems: BATCH_MAX_ITEMS,
        log,
        scenario: {
          kind: plan.kind,
          buyers,
          resourceId: plan.listing.resourceId,
          cap: plan.listing.terms.max,
          charge: plan.listing.charge,
          calls: CALLS,
          arrivalAt: RATES[plan.rate],
        },
      });
      rows.push({ plan, result });
      log(`  ${summary(result)} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
    }
    const range = await chain.baseFeeRange(fromBlock);
    feeChecks.push({ feeWei, ...range });
    if (range.lowest !== feeWei || range.highest - feeWei > 1_000n)
      throw new Error(`the base fee left ${gwei(feeWei)}: ${range.lowest} to ${range.highest} wei`);
  }
} finally {
  await chain.close();
}

/**
 * The rows at one base fee. Exact payments are settled alone and never held, so neither the rate nor the number of
 * buyers changes what one costs: one row. A random nonce spends a slot of its own whoever signs it: one buyer. A
 * payment the facilitator refuses at verify is refused at every rate: one row.
 */
function plansAt(feeWei: bigint, listing: (feeWei: bigint, forRandom?: boolean) => Listing): Plan[] {
  const atFloor = listing(FEES[0]);
  const plans: Plan[] = [];
  const traffic = (l: Listing, kind: PaymentKind, buyerCounts: number[]) => {
    for (const rate of Object.keys(RATES) as Rate[])
      for (const buyers of buyerCounts) plans.push({ feeWei, listing: l, kind, rate, buyers });
  };
  if (feeWei === FEES[0]) {
    traffic(atFloor, "bitmap", [1, MANY]);
    plans.push({ feeWei, listing: atFloor, kind: "random", rate: "1/s", buyers: 1 });
    traffic(listing(feeWei, true), "random", [1]);
  } else {
    plans.push({ feeWei, listing: atFloor, kind: "bitmap", rate: "1/s", buyers: 1 });
    traffic(listing(feeWei), "bitmap", [1, MANY]);
    traffic(listing(feeWei, true), "random", [1]);
  }
  plans.push({ feeWei, listing: atFloor, kind: "exact", rate: "1/s", buyers: 1 });
  return plans;
}

/** New buyers for a plan: escrow deposits covering every call at the cap, or wallet funds for exact payments. */
async function fundedBuyers(plan: Plan): Promise<LocalAccount[]> {
  const buyers = Array.from({ length: plan.buyers }, () => privateKeyToAccount(generatePrivateKey()));
  const callsEach = BigInt(Math.ceil(CALLS / plan.buyers));
  const addresses = buyers.map((b) => b.address);
  // An exact quote is at least the exact floor at this fee: a stablecoin unit a call covers it many times over.
  if (plan.kind === "exact") await chain.mintTo(addresses, callsEach * 1_000_000n);
  else await chain.depositFor(addresses, callsEach * plan.listing.terms.max);
  return buyers;
}

function gwei(wei: bigint): string {
  return `${formatUnits(wei, 9)} gwei`;
}

/** Nearest-rank percentile of `values` (seconds), or undefined when there are none. */
function percentile(values: readonly number[], p: number): number | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

function duration(seconds: number | undefined): string {
  if (seconds === undefined) return "–";
  if (seconds < 120) return `${seconds} s`;
  return `${Math.round(seconds / 60)} min`;
}

function accepted(r: ScenarioResult): number {
  return r.calls - r.refused;
}

/** `units` per call settled, or undefined when none was. */
function perCall(units: bigint, r: ScenarioResult): number | undefined {
  return accepted(r) === 0 ? undefined : Number(units) / accepted(r);
}

function signed(n: number | undefined): string {
  return n === undefined ? "–" : `${n >= 0 ? "+" : "−"}${Math.abs(n).toFixed(1)}`;
}

function unsigned(n: number | undefined): string {
  return n === undefined ? "–" : n.toFixed(1);
}

function summary(r: ScenarioResult): string {
  const margin = perCall(r.books.treasury - r.books.cost, r);
  const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
  // The facilitator's own histogram of hold times: its mean should be the bench's, measured from the outside.
  const histogramMean = r.holdHistogram.count === 0 ? undefined : r.holdHistogram.sum / r.holdHistogram.count;
  const check =
    histogramMean === undefined
      ? ""
      : `, mean hold ${mean(r.heldSeconds).toFixed(0)} s (the facilitator's histogram: ${histogramMean.toFixed(0)} s)`;
  return `${accepted(r)} settled, ${r.refused} refused, ${r.books.transactions} transactions, margin per call ${signed(margin)}, held p50 ${duration(percentile(r.heldSeconds, 50))}${check}`;
}

function forcedCell(f: ScenarioResult["forced"][keyof ScenarioResult["forced"]]): string {
  return f.batches === 0 ? "0" : `${f.batches} (${f.debits} debits), loss ${f.lossUnits}`;
}

const tableRows = rows.map(({ plan, result: r }) => {
  const debitsPerTx =
    r.books.transactions === 0n ? "–" : (Number(r.books.debits) / Number(r.books.transactions)).toFixed(1);
  const price = plan.kind === "exact" ? `exact ${r.exactAmount ?? "–"}` : `${plan.listing.charge}`;
  return `| ${gwei(plan.feeWei)} | ${plan.listing.label} | ${plan.kind} | ${price} | ${plan.rate} | ${plan.buyers} | ${r.calls} | ${r.refused} | ${debitsPerTx} | ${unsigned(perCall(r.books.treasury, r))} | ${unsigned(perCall(r.books.cost, r))} | **${signed(perCall(r.books.treasury - r.books.cost, r))}** | ${duration(percentile(r.heldSeconds, 50))} / ${duration(percentile(r.heldSeconds, 99))} | ${forcedCell(r.forced.deadline)} | ${forcedCell(r.forced.longest_hold)} |`;
});

const losing = rows.filter(({ result: r }) => {
  const margin = perCall(r.books.treasury - r.books.cost, r);
  return margin !== undefined && margin < 0 && r.forced.deadline.debits === 0;
});
const heldRows = rows.filter(({ plan, result: r }) => plan.kind !== "exact" && r.books.transactions > 0n);
const forcedOnly = heldRows.filter(
  ({ result: r }) => BigInt(r.forced.deadline.batches + r.forced.longest_hold.batches) === r.books.transactions,
);
// Each refusal to its first clause: the rest tells the buyer how to sign.
const refusals = [...new Set(rows.flatMap(({ result: r }) => (r.refusal ? [r.refusal.split(";")[0]] : [])))];
/** What the hold policy expects a debit to cost at each fee, with its margin, against what a floor-priced call earns. */
const holdReckoning = FEES.map((feeWei) => {
  const floorRow = rows.find(
    ({ plan, result }) => plan.feeWei === feeWei && plan.kind === "bitmap" && accepted(result) > 0,
  );
  const earned = floorRow && perCall(floorRow.result.books.treasury, floorRow.result);
  const expected = gasCostInTokenUnits(BigInt(SETTLEMENT_GAS_PER_DEBIT), feeWei + tipWei);
  const withMargin = (expected * BigInt(10_000 + Number(HOLD.HOLD_MARGIN_BPS)) + 9_999n) / 10_000n;
  return `at ${gwei(feeWei)} a call at the floor earns the treasury ${earned ?? "–"}, and the policy expects each debit to cost ${expected} (${SETTLEMENT_GAS_PER_DEBIT.toLocaleString("en-US")} gas at ${gwei(feeWei + tipWei)}), ${withMargin} with its margin, before the batch's own gas`;
});
const floor20 = priceFloor({
  gasPerDebit: SETTLEMENT_GAS_PER_DEBIT,
  baseFeeWei: FEES[0],
  feeBps,
  marginBps: SETTLEMENT_MARGIN_BPS,
});

const markdown = `## Economics

\`npm run economics\` (${new Date().toISOString().slice(0, 10)}, ${machineLine()}): paid calls settled through a real
facilitator on the chain the stack runs, the embedded EDR chain of \`npm start\` (\`services/chain/startEdrChain.ts\`,
chain id 5042002, contracts deployed by the stack's own Ignition deployment, \`deployLocalContracts\`), in this process.
Its base fee is set once (\`hardhat_setNextBlockBaseFeePerGas\`) and the chain keeps it, as it keeps the test network's
20 gwei floor: checked after the run, ${feeChecks.map((c) => `${c.blocks} blocks at ${gwei(c.feeWei)}: ${c.lowest === c.highest ? "every one exactly" : `from ${c.lowest} to ${c.highest} wei`}`).join("; ")}. Gas is paid at the base fee plus the node's 1 gwei priority fee, in USDC (one base unit
is 10^12 wei).

Each row is ${CALLS} calls on a simulated clock: a new in-process facilitator (\`createFacilitator\` with an injected
clock) with committed settlement and holding on, \`HOLD_MAX_SECONDS=${HOLD.HOLD_MAX_SECONDS}\` (set for this run; the
default 0 holds nothing), \`HOLD_MARGIN_BPS=${HOLD.HOLD_MARGIN_BPS}\` and \`HOLD_DEADLINE_MARGIN_SECONDS=${HOLD.HOLD_DEADLINE_MARGIN_SECONDS}\` (the defaults), batches of
up to ${BATCH_MAX_ITEMS} debits (the default). Calls arrive one a minute, one a second, or 100 a second (100 sharing each
second); the bench dates each at its time on both clocks (the facilitator's and the chain's next block), verifies and
settles it, and lets the relayer's hold policy (\`relayer/holdPolicy.ts\`) decide when batches go: between calls the
clock jumps to the next moment a held debit must go (the longest hold, or its deadline) and waits for the relayer to
send. Every payment is signed for an hour (\`validBefore\` = its time + ${MAX_AUTHORIZATION_SECONDS} s). Buyers are new
in each row; "many" is ${MANY} buyers taking turns. Bitmap nonces are each buyer's consecutive indexes, as the buyer SDK
signs them (\`bitmapNonce\`); random nonces are what a generic client signs; exact payments pay the gate's quote, the
listing's cap raised to \`GET /pricing/exact\`'s minimum.

Listings are priced as the studio prices them at publish: \`suggestPrice\` for a fast handler, raised to the
marketplace's price floor (${SETTLEMENT_GAS_PER_DEBIT.toLocaleString("en-US")} gas per debit, ${SETTLEMENT_MARGIN_BPS / 100}% margin, the escrow's ${feeBps / 100}% fee): at 20 gwei a
base of ${floor20.minimumBase}; each call answers ${RESPONSE_BYTES} bytes and is charged the "price" column. At 40 gwei
the facilitator's verify refuses payments for that listing, whose price no longer covers a debit ("debitShortfall"),
and the same traffic runs against a listing its creator re-priced at the 40 gwei floor. A random nonce writes a slot
of its own (${expectedDebitGas(randomNonce()).toLocaleString("en-US")} gas expected), so verify refuses it at a bitmap-priced listing, whatever the
rate; it runs against a listing priced at the floor for random nonces. Rows left out, and why: exact payments are
settled alone and never held, so one row per fee (rate and buyers change nothing); a random nonce costs the same
whoever signs it, so one buyer; a refused payment is refused at any rate, so one row.

Columns: debits per transaction and the margin per call come from the relayer's books (\`GET /metrics\`,
\`facilitator_books_*\`): treasury income less gas cost, divided by the calls settled, in USDC base units. Held time
is the simulated time from a debit's settle to its batch going out (p50 / p99; exact payments are not held). Forced
sends are batches sent before they paid for themselves (\`facilitator_forced_*\`): count (debits) and loss, what
they cost beyond the treasury's share. A row's traffic stops after its last call: the debits that came after its
last batch that paid have no later calls to pay with, and wait for the longest hold. That is the one forced batch of a
row and the debits in its p99 held time; in traffic that goes on, they would go out in the next batch that pays.

| base fee | listing | payments | price | rate | buyers | calls | refused | debits per tx | treasury per call | gas per call | margin per call | held p50 / p99 | forced: deadline | forced: longest hold |
|---|---|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---|---|---|
${tableRows.join("\n")}

${refusals.length > 0 ? `Refusals, as verify words them: ${refusals.map((r) => `"${r}"`).join("; ")}.` : ""}

${forcedOnly.length === heldRows.length && heldRows.length > 0 ? `In every row of escrow payments, every batch was forced: none was sent because it paid for itself by the hold policy's reckoning (\`pays\`: the treasury's share against ${EXPECTED_BATCH_BASE_GAS.toLocaleString("en-US")} gas a batch plus the price floor's gas per debit, at the base fee and the node's priority fee, with the ${Number(HOLD.HOLD_MARGIN_BPS) / 100}% margin), so each debit waited up to the longest hold whatever the traffic: ${holdReckoning.join("; ")}. What the batches really cost is the gas column.` : `${forcedOnly.length} of ${heldRows.length} rows of escrow payments sent only forced batches.`}

${
  losing.length > 0
    ? `Margin below 0 without a send forced by a deadline in ${losing.length} of ${rows.length} rows: ${losing
        .map(({ plan }) => `${gwei(plan.feeWei)} ${plan.kind} ${plan.rate} ${plan.buyers} buyer(s)`)
        .join("; ")}.`
    : `Margin per call is at least 0 in every row that settled calls.`
}
`;
process.stdout.write(`${markdown}\n`);
writeBenchSection("economics", markdown);
