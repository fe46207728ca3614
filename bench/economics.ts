import { formatUnits, parseGwei } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { signEscrowPayment } from "../services/buyer/src/sdk/signPayment.ts";
import { bitmapNonce } from "../services/protocol/bitmapNonce.ts";
import {
  BASE_FEE_FLOOR_WEI,
  SETTLEMENT_GAS_PER_DEBIT,
  SETTLEMENT_MARGIN_BPS,
  TOKEN_DECIMALS,
} from "../services/protocol/constants.ts";
import { gasCostInTokenUnits } from "../services/protocol/gasCostInTokenUnits.ts";
import { meteredPrice } from "../services/protocol/price.ts";
import { priceFloor } from "../services/protocol/priceFloor.ts";
import { stopChild } from "../services/stack/childProcess.ts";
import { parseCommandLine } from "../services/stack/parseCommandLine.ts";
import { suggestPrice } from "../services/studio/suggestPrice.ts";
import { ROLE, startLocalChain } from "../testkit/chain/localChain.ts";
import type { Books } from "../testkit/facilitator/readBooks.ts";
import { readBooks } from "../testkit/facilitator/readBooks.ts";
import { facilitatorEnv, postJson, spawnFacilitator } from "../testkit/facilitator/startFacilitator.ts";
import { sleep } from "../testkit/sleep.ts";
import { envCount } from "./benchEnv.ts";
import { machineLine, writeBenchSection } from "./benchReport.ts";

parseCommandLine(
  `usage: npm run economics

What settling a paid call costs its relayer and earns its treasury, for 1, 10 and 100 buyers at the default price:
paid calls go through a real facilitator (verify, settle, batched debits on the local chain) and the relayer's own
books (GET /metrics) give the gas and the treasury's income. Prints a table and writes the "Economics" section of
docs/benchmarks.md. Every buyer signs bitmap nonces, as the buyer SDK does. Environment: ECONOMICS_CALLS (100 paid calls per row), ECONOMICS_BASE_FEE_GWEI (the base fee
to price "today" at; default: the local chain's own, which is not the test network's).`,
  {},
);

const CALLS = envCount("ECONOMICS_CALLS", 100);
const SHAPES = [1, 10, 100] as const;
const RESPONSE_BYTES = 512;
const log = (line: string) => process.stderr.write(`[economics] ${line}\n`);

log("starting the local chain");
const chain = await startLocalChain();
const { token, escrow } = chain.contracts;
const feeBps = Number(await escrow.read.feeBps());
/**
 * The default price: what the studio suggests for a fast handler with a small response, raised to the marketplace's
 * floor at the test network's 20 gwei with the default gas per debit and margin, as a call is charged.
 */
const floor = priceFloor({
  gasPerDebit: SETTLEMENT_GAS_PER_DEBIT,
  baseFeeWei: BASE_FEE_FLOOR_WEI,
  feeBps,
  marginBps: SETTLEMENT_MARGIN_BPS,
});
const pricing = suggestPrice({ maxResponseBytes: 1024, minimumBase: floor.minimumBase });
const charge = meteredPrice({
  base: pricing.base,
  perKB: pricing.perKB,
  computeMultiplier: 1,
  cap: BigInt(pricing.max),
  responseBytes: RESPONSE_BYTES,
});
const resourceId = await chain.registerResource({
  slug: "economics",
  cap: BigInt(pricing.max),
  base: BigInt(pricing.base),
  perKB: BigInt(pricing.perKB),
});
const facilitator = await spawnFacilitator({
  ...facilitatorEnv(chain),
  BATCH_WINDOW_MS: "200",
  BATCH_MAX_ITEMS: "128",
  LOG_LEVEL: "info",
});

type Row = { buyers: number; books: Books; baseFeeWei: bigint };
const rows: Row[] = [];
try {
  for (const buyers of SHAPES) {
    log(`${CALLS} paid calls from ${buyers} buyer(s)`);
    const accounts = Array.from({ length: buyers }, () => privateKeyToAccount(generatePrivateKey()));
    const perBuyer = BigInt(pricing.max) * BigInt(Math.ceil(CALLS / buyers) + 1);
    await token.write.mint([chain.address(ROLE.admin), perBuyer * BigInt(buyers)]);
    await token.write.approve([escrow.address, perBuyer * BigInt(buyers)]);
    for (const account of accounts) await escrow.write.depositFor([account.address, perBuyer]);
    const validBefore = BigInt(Math.floor(Date.now() / 1000) + 600);
    // Each buyer's calls take the next bits of its nonce word, as the buyer SDK allocates them.
    const payments = await Promise.all(
      Array.from({ length: CALLS }, (_, i) =>
        signEscrowPayment({
          account: accounts[i % buyers] as (typeof accounts)[number],
          escrow: escrow.address,
          resourceId,
          maxAmount: BigInt(pricing.max),
          validBefore,
          nonce: bitmapNonce(Math.floor(i / buyers)),
        }),
      ),
    );
    for (const p of payments) {
      const r = await postJson(`${facilitator.url}/verify`, { paymentPayload: p, resourceId, maxTimeoutSeconds: 60 });
      if (r.body.isValid !== true) throw new Error(`verify refused: ${JSON.stringify(r.body)}`);
    }
    const before = await readBooks(facilitator.url);
    await Promise.all(
      payments.map(async (p) => {
        const r = await postJson(`${facilitator.url}/settle`, {
          idemKey: p.authorization.nonce,
          // Bitmap nonces repeat across buyers, so an idemKey is named with its payer.
          payer: p.authorization.buyer,
          resourceId,
          amount: charge.toString(),
          response: { status: 200, contentType: "application/json", body: { ok: true } },
        });
        if (r.status !== 200) throw new Error(`settle failed: ${r.status} ${JSON.stringify(r.body)}`);
      }),
    );
    let after = await readBooks(facilitator.url);
    for (let waited = 0; after.debits - before.debits < BigInt(CALLS); waited += 100) {
      if (waited > 60_000) throw new Error(`the books show ${after.debits - before.debits} of ${CALLS} debits`);
      await sleep(100);
      after = await readBooks(facilitator.url);
    }
    const block = await chain.publicClient.getBlock();
    rows.push({
      buyers,
      baseFeeWei: block.baseFeePerGas ?? 0n,
      books: {
        transactions: after.transactions - before.transactions,
        debits: after.debits - before.debits,
        gas: after.gas - before.gas,
        cost: after.cost - before.cost,
        treasury: after.treasury - before.treasury,
      },
    });
  }
} finally {
  await stopChild(facilitator.child);
  await chain.close();
}

const todayWei = process.env.ECONOMICS_BASE_FEE_GWEI ? parseGwei(process.env.ECONOMICS_BASE_FEE_GWEI) : undefined;
const usdc = (units: bigint) => `${units} (${formatUnits(units, TOKEN_DECIMALS)} USDC)`;
const gwei = (wei: bigint) => `${formatUnits(wei, 9)} gwei`;
const ceilDiv = (a: bigint, b: bigint) => (a + b - 1n) / b;
const table = rows.map(({ buyers, books, baseFeeWei }) => {
  const gasPerDebit = ceilDiv(books.gas, books.debits);
  const atFloor = gasCostInTokenUnits(gasPerDebit, BASE_FEE_FLOOR_WEI);
  const today = todayWei ?? baseFeeWei;
  const atToday = gasCostInTokenUnits(gasPerDebit, today);
  const income = books.treasury / books.debits;
  // The least charge whose treasury share covers the settlement cost at 20 gwei, with no margin.
  const breakEven = priceFloor({ gasPerDebit, baseFeeWei: BASE_FEE_FLOOR_WEI, feeBps, marginBps: 0 }).minimumBase;
  return `| ${buyers} | ${books.debits} | ${gasPerDebit.toLocaleString("en-US")} | ${usdc(atFloor)} | ${usdc(atToday)} at ${gwei(today)} | ${usdc(income)} | ${usdc(income - atFloor)} | ${usdc(breakEven)} |`;
});

const markdown = `## Economics

\`npm run economics\` (${new Date().toISOString().slice(0, 10)}, ${machineLine()}): ${CALLS} paid calls per row through a
real facilitator on the local chain (verify, committed settle, batched debits), read from the relayer's books
(\`GET /metrics\`, \`facilitator_books_*\`). The default price is what the studio suggests for a fast handler,
raised to the marketplace's price floor at 20 gwei (${SETTLEMENT_GAS_PER_DEBIT.toLocaleString("en-US")} gas per debit expected, ${SETTLEMENT_MARGIN_BPS / 100}% margin; docs/protocol.md, "Price floor"):
base ${pricing.base}, ${pricing.perKB} per KB, cap ${pricing.max}; each call answers ${RESPONSE_BYTES} bytes and is charged
${usdc(charge)}; the treasury's fee is ${feeBps / 100}%. Gas is paid in USDC on the test network (one base unit is
10^12 wei), whose base fee never falls below 20 gwei. "Today" is ${todayWei ? `the base fee given (ECONOMICS_BASE_FEE_GWEI)` : "the local chain's own base fee after the run, which is not the test network's: pass ECONOMICS_BASE_FEE_GWEI for that"}.

| buyers | debits | gas per debit | cost per debit at 20 gwei | cost per debit today | treasury income per call | relayer margin per call at 20 gwei | break-even charge at 20 gwei |
|---:|---:|---:|---:|---:|---:|---:|---:|
${table.join("\n")}
`;
process.stdout.write(`${markdown}\n`);
writeBenchSection("economics", markdown);
