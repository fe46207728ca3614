/** What `npm run bench:facilitator` runs, once facilitator.ts has read its command line (see there). */
import type { Hex, LocalAccount } from "viem";
import { parseEventLogs, recoverTypedDataAddress } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { signEscrowPayment } from "../services/buyer/src/sdk/signPayment.ts";
import { recoverSigner, recoveryBackend } from "../services/facilitator/recoverSigner.ts";
import { signingAccount } from "../services/facilitator/relayer/signingAccount.ts";
import { CHAIN_ID } from "../services/protocol/constants.ts";
import { debitDigest } from "../services/protocol/debitDigest.ts";
import { parseDebits } from "../services/protocol/parseDebits.ts";
import { percentile } from "../services/protocol/percentile.ts";
import { debitTypedData } from "../services/protocol/typedData.ts";
import { stopChild } from "../services/stack/childProcess.ts";
import { ROLE, startLocalChain } from "../testkit/chain/localChain.ts";
import { facilitatorEnv, postJson, spawnFacilitator } from "../testkit/facilitator/startFacilitator.ts";
import { testSchema } from "../testkit/postgres/testPostgres.ts";
import { envCount } from "./benchEnv.ts";
import { machineLine, writeBenchSection } from "./benchReport.ts";

/**
 * `npm run bench:facilitator`: signature verification on one core (ours vs viem's recoverTypedDataAddress),
 * POST /verify throughput end to end, and settle (debit) throughput with batching on the local chain.
 * Writes the "Facilitator" section of docs/benchmarks.md.
 */

const SIGNATURES = envCount("BENCH_SIGNATURES", 3000);
const VERIFIES = envCount("BENCH_VERIFIES", 4000);
const BUYERS = 50;
/** Requests in flight, as a fleet of gates would keep them: enough to fill batches, not unbounded. */
const CONCURRENCY = envCount("BENCH_CONCURRENCY", 128);
const CAP = 10_000n;

const log = (line: string) => process.stderr.write(`[bench:facilitator] ${line}\n`);

async function timed<T>(items: readonly T[], run: (item: T) => Promise<unknown>, concurrency: number) {
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < items.length) {
        const item = items[next++]!;
        const t = performance.now();
        await run(item);
        latencies.push(performance.now() - t);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  return { perSecond: items.length / seconds, p50: percentile(latencies, 50), p99: percentile(latencies, 99) };
}

log("starting the local chain");
const chain = await startLocalChain();
const resourceId = await chain.registerResource({ slug: "bench", cap: CAP });
const escrow = chain.addresses.escrow;

log(`signing ${SIGNATURES} authorizations`);
const signer = privateKeyToAccount(generatePrivateKey());
const validBefore = BigInt(Math.floor(Date.now() / 1000) + 3600);
const signed = await Promise.all(
  Array.from({ length: SIGNATURES }, () =>
    signEscrowPayment({ account: signer, escrow, resourceId, maxAmount: CAP, validBefore }),
  ),
);

async function signaturesPerSecond(check: (p: (typeof signed)[number]) => Promise<boolean>) {
  const started = performance.now();
  for (const p of signed) if (!(await check(p))) throw new Error("signature did not verify");
  return SIGNATURES / ((performance.now() - started) / 1000);
}
log("signature verification, one core");
const viemBaseline = await signaturesPerSecond(
  async (p) =>
    (await recoverTypedDataAddress({ ...debitTypedData(p.authorization, escrow), signature: p.signature })) ===
    signer.address,
);
const oursJs = await signaturesPerSecond(
  async (p) => (await recoverSigner(debitDigest(p.authorization, escrow), p.signature, "js")) === signer.address,
);
const oursNative = await signaturesPerSecond(
  async (p) => (await recoverSigner(debitDigest(p.authorization, escrow), p.signature, "native")) === signer.address,
);

/** A relayer transaction of a 50-debit compact batch: its calldata is 4 + 50 × 192 bytes. */
const BATCH_TRANSACTION = {
  type: "eip1559",
  chainId: CHAIN_ID,
  to: escrow,
  data: `0x${"ab".repeat(4 + 50 * 192)}`,
  gas: 900_000n,
  maxFeePerGas: 40_000_000_000n,
  maxPriorityFeePerGas: 1n,
} as const;
const SIGNED_TRANSACTIONS = 300;
/** CPU milliseconds `account` takes to sign one batch transaction, over SIGNED_TRANSACTIONS of them. */
async function signingCpuMs(account: LocalAccount) {
  const started = process.cpuUsage();
  for (let nonce = 0; nonce < SIGNED_TRANSACTIONS; nonce++)
    await account.signTransaction({ ...BATCH_TRANSACTION, nonce });
  const used = process.cpuUsage(started);
  return (used.user + used.system) / 1000 / SIGNED_TRANSACTIONS;
}
log("relayer transaction signing, one core");
const relayerKey = generatePrivateKey();
const viemSigning = await signingCpuMs(privateKeyToAccount(relayerKey));
const oursSigning = await signingCpuMs(signingAccount(relayerKey));

const { token } = chain.contracts;
if (process.env.BENCH_DATABASE_URL) process.env.TEST_DATABASE_URL = process.env.BENCH_DATABASE_URL;

/** Funds fresh buyers, starts a facilitator in its own process on `store`, and measures verify and settle. */
async function measure(store: Record<string, string>) {
  log(`funding ${BUYERS} buyers`);
  const buyers = Array.from({ length: BUYERS }, () => privateKeyToAccount(generatePrivateKey()));
  const perBuyer = CAP * BigInt(Math.ceil(VERIFIES / BUYERS) + 1);
  await token.write.mint([chain.address(ROLE.admin), perBuyer * BigInt(BUYERS)]);
  await token.write.approve([escrow, perBuyer * BigInt(BUYERS)]);
  for (const buyer of buyers) await chain.contracts.escrow.write.depositFor([buyer.address, perBuyer]);
  const facilitator = await spawnFacilitator({
    ...facilitatorEnv(chain),
    BATCH_WINDOW_MS: "20",
    BATCH_MAX_ITEMS: "64",
    LOG_LEVEL: "info",
    ...store,
  });
  try {
    log(`${VERIFIES} POST /verify over ${BUYERS} buyers, ${CONCURRENCY} in flight`);
    const payments = await Promise.all(
      Array.from({ length: VERIFIES }, (_, i) =>
        signEscrowPayment({ account: buyers[i % BUYERS]!, escrow, resourceId, maxAmount: CAP, validBefore }),
      ),
    );
    const verify = await timed(
      payments,
      async (p) => {
        const r = await postJson(`${facilitator.url}/verify`, { paymentPayload: p, resourceId, maxTimeoutSeconds: 60 });
        if (r.body.isValid !== true) throw new Error(`verify refused: ${JSON.stringify(r.body)}`);
      },
      CONCURRENCY,
    );
    log(`${VERIFIES} POST /settle, batched`);
    const startBlock = await chain.publicClient.getBlockNumber();
    const settle = await timed(
      payments,
      async (p) => {
        const r = await postJson(`${facilitator.url}/settle`, {
          idemKey: p.authorization.nonce,
          resourceId,
          amount: "1234",
          response: { status: 200, contentType: "application/json", body: { ok: true } },
        });
        if (r.status !== 200) throw new Error(`settle failed: ${r.status} ${JSON.stringify(r.body)}`);
      },
      CONCURRENCY,
    );
    const endBlock = await chain.publicClient.getBlockNumber();
    let batches = 0;
    let items = 0;
    let skipped = 0;
    let gas = 0n;
    for (let b = startBlock + 1n; b <= endBlock; b++) {
      const block = await chain.publicClient.getBlock({ blockNumber: b, includeTransactions: true });
      for (const tx of block.transactions) {
        if (tx.to?.toLowerCase() !== escrow.toLowerCase()) continue;
        const receipt = await chain.publicClient.getTransactionReceipt({ hash: tx.hash as Hex });
        const debits = parseDebits(receipt.logs, escrow).length;
        skipped += parseEventLogs({
          abi: chain.contracts.escrow.abi,
          logs: receipt.logs,
          eventName: "DebitSkipped",
        }).length;
        if (debits === 0) continue;
        batches += 1;
        items += debits;
        gas += receipt.gasUsed;
      }
    }
    return { verify, settle, batches, items, skipped, gas };
  } finally {
    await stopChild(facilitator.child);
  }
}

const pglite = await measure({ DATA_DIR: "memory://" });
const db = await testSchema("facilitator_bench");
const postgres = await measure({ DATABASE_URL: db.url, DATABASE_SCHEMA: db.schema }).finally(() => db.drop());
await chain.close();

const fmt = (n: number) => Math.round(n).toLocaleString("en-US");
const met = (ok: boolean) => (ok ? "met" : "not met");
const best = (operation: "verify" | "settle") => Math.max(pglite[operation].perSecond, postgres[operation].perSecond);
const ms = (n: number) => `${n.toFixed(1)} ms`;
const markdown = `
## Facilitator

Command: \`npm run bench:facilitator\` (bench/facilitator.ts). Machine: ${machineLine()}. The facilitator runs in its own process; the local chain (Hardhat EDR, automine) and the load generator share the other process.

Signature verification of a DebitAuthorization on one core (${fmt(SIGNATURES)} signatures, sequential):

| implementation | verifications/s |
|---|---|
| viem \`recoverTypedDataAddress\` (baseline) | ${fmt(viemBaseline)} |
| ours: cached domain/type hash + viem recovery (pure-JS fallback) | ${fmt(oursJs)} |
| ours: cached domain/type hash + libsecp256k1 N-API (\`${recoveryBackend}\` here) | ${fmt(oursNative)} |

Signing one relayer transaction of a 50-debit batch (${fmt(4 + 50 * 192)} bytes of calldata; CPU per transaction over ${SIGNED_TRANSACTIONS}, sequential; both give the same bytes):

| implementation | CPU per transaction | per debit of the batch |
|---|---|---|
| viem's private-key account (keccak in JavaScript, noble's signing) | ${viemSigning.toFixed(2)} ms | ${((viemSigning / 50) * 1000).toFixed(0)} µs |
| ours (\`relayer/signingAccount.ts\`: keccak in WebAssembly, libsecp256k1 signing) | ${oursSigning.toFixed(2)} ms | ${((oursSigning / 50) * 1000).toFixed(0)} µs |

End to end over HTTP (${fmt(VERIFIES)} payments, ${BUYERS} buyers, ${CONCURRENCY} requests in flight):

| store | operation | per second | p50 | p99 |
|---|---|---|---|---|
${(
  [
    ["PGlite (embedded)", pglite],
    ["PostgreSQL", postgres],
  ] as const
)
  .flatMap(([name, r]) => [
    `| ${name} | \`POST /verify\` (decode, signature, chain read, per-buyer lock, reserve) | ${fmt(r.verify.perSecond)} | ${ms(r.verify.p50)} | ${ms(r.verify.p99)} |`,
    `| ${name} | \`POST /settle\` (debit mined on chain, receipt stored) | ${fmt(r.settle.perSecond)} | ${ms(r.settle.p50)} | ${ms(r.settle.p99)} |`,
  ])
  .join("\n")}

Batching (PGlite run): ${pglite.items} debits in ${pglite.batches} transactions (${(pglite.items / Math.max(pglite.batches, 1)).toFixed(1)} per batch, ${pglite.skipped} items skipped), ${fmt(Number(pglite.gas) / Math.max(pglite.items, 1))} gas per debit including each transaction's 21,000 base. A signer cuts its next batch when its previous one has been broadcast, so batches grow with the load.

Against the facilitator's targets: signature verification on one core ${fmt(oursNative)}/s (target ≥ 2,000: ${met(oursNative >= 2000)}); the whole \`POST /verify\` (decode, signature, chain read, per-buyer lock, reservation) ${fmt(best("verify"))}/s at best, ${met(best("verify") >= 2000)} against the same figure; debits ${fmt(pglite.settle.perSecond)}/s with PGlite and ${fmt(postgres.settle.perSecond)}/s with PostgreSQL (target ≥ 500 sustained: ${met(best("settle") >= 500)}${pglite.settle.perSecond < 500 && postgres.settle.perSecond >= 500 ? " with PostgreSQL, not with the embedded PGlite" : ""}). Gas per batched debit: docs/gas.md.
`;
writeBenchSection("facilitator", markdown);
process.stdout.write(markdown);
process.exit(0);
