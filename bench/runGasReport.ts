/** What `npm run gas` (bench/gasReport.ts) runs once it has read its command line. */
import { writeFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import hre, { network } from "hardhat";
import type { Hex } from "viem";
import { hexToBytes, keccak256, toHex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import StackModule from "../ignition/modules/Stack.ts";
import { compactDebit } from "../services/facilitator/relayer/compactDebit.ts";
import { bitmapNonce, NONCES_PER_WORD } from "../services/protocol/bitmapNonce.ts";
import {
  debitAuthorizationTypes,
  escrowDomain,
  tokenDomain,
  transferWithAuthorizationTypes,
} from "../services/protocol/typedData.ts";
import { compilerSettingsOf, describeCompilerSettings } from "./gas/compilerSettings.ts";

/** 2100-01-01: a fixed validBefore, so that signatures (and calldata gas) do not depend on the clock. */
const VALID_BEFORE = 4_102_444_800n;
const PRICE = 1_200n;
const BATCH_SIZES = [1, 10, 50] as const;
/** Buyers and resources of the batch that spreads over many of each. */
const SPREAD_BUYERS = 50;
const SPREAD_RESOURCES = 5;
const DOC = fileURLToPath(new URL("../docs/gas.md", import.meta.url));

type Row = { operation: string; items: number; gasUsed: bigint };

/** A deterministic random-form nonce for `label` (what a client that does not allocate bitmap nonces sends). */
function nonceOf(label: string): Hex {
  return keccak256(toHex(`gas:${label}`));
}

async function measure(): Promise<{ rows: Row[]; baseline: bigint; breakdowns: Breakdown[] }> {
  await hre.tasks.getTask("build").run({ quiet: true, noTests: true });
  const { viem, ignition } = await network.create();
  const [admin, relayer, facilitator, treasury, creator, buyer, , payout] = await viem.getWalletClients();
  if (!admin || !relayer || !facilitator || !treasury || !creator || !buyer || !payout)
    throw new Error("the embedded chain has too few accounts");
  const payer = buyer;
  const deployed = await ignition.deploy(StackModule, {
    parameters: {
      $global: {
        admin: admin.account.address,
        treasury: treasury.account.address,
        relayer: relayer.account.address,
        facilitator: facilitator.account.address,
      },
    },
  });
  const token = await viem.getContractAt("IFiatToken", deployed.token.address);
  const identity = await viem.getContractAt("IdentityRegistry", deployed.identity.address);
  const registry = await viem.getContractAt("ResourceRegistry", deployed.registry.address);
  const escrow = await viem.getContractAt("PaymentEscrow", deployed.escrow.address);
  const publicClient = await viem.getPublicClient();

  async function gasOf(hash: Promise<Hex>): Promise<bigint> {
    const receipt = await publicClient.waitForTransactionReceipt({ hash: await hash });
    if (receipt.status !== "success") throw new Error(`transaction ${receipt.transactionHash} reverted`);
    return receipt.gasUsed;
  }

  await gasOf(identity.write.register(["ipfs://gas-report"], { account: creator.account }));
  const agentId = 0n;
  const registration = {
    slug: "gas-report",
    agentId,
    payout: payout.account.address,
    category: "data",
    pricing: { base: 1_000n, perKB: 200n, max: 50_000n },
    cardURI: "https://gas.example/.well-known/agent-card.json",
    cardHash: keccak256("0x7b7d"),
  };
  await gasOf(registry.write.register([registration], { account: creator.account }));
  const resourceId = await registry.read.resourceIdOf([creator.account.address, registration.slug]);
  const spreadResources: Hex[] = [];
  for (let r = 0; r < SPREAD_RESOURCES; r++) {
    const slug = `gas-report-${r}`;
    await gasOf(identity.write.register([`ipfs://gas-report-${r}`], { account: creator.account }));
    const spreadRegistration = { ...registration, slug, agentId: BigInt(r + 1) };
    await gasOf(registry.write.register([spreadRegistration], { account: creator.account }));
    spreadResources.push(await registry.read.resourceIdOf([creator.account.address, slug]));
  }
  const funds = 1_000_000_000n;
  await gasOf(token.write.mint([buyer.account.address, 2n * funds], { account: admin.account }));
  await gasOf(token.write.mint([payout.account.address, 1n], { account: admin.account }));
  await gasOf(token.write.approve([escrow.address, funds], { account: buyer.account }));
  await gasOf(escrow.write.deposit([funds], { account: buyer.account }));

  type DebitSigner = { address: Hex; signTypedData: typeof buyer.signTypedData };
  const mainBuyer: DebitSigner = { address: buyer.account.address, signTypedData: (p) => buyer.signTypedData(p) };
  /** Each buyer's next bitmap nonce index, as the buyer SDK allocates them: consecutive, so calls share words. */
  const nextIndex = new Map<Hex, number>();
  const allocate = (signer: DebitSigner): Hex => {
    const index = nextIndex.get(signer.address) ?? 0;
    nextIndex.set(signer.address, index + 1);
    return bitmapNonce(index);
  };

  /** A debit of `signer` to `resource`; its nonce the signer's next bitmap nonce, or a random-form one for `label`. */
  async function signedDebit(label: string | null, signer: DebitSigner = mainBuyer, resource: Hex = resourceId) {
    const authorization = {
      buyer: signer.address,
      resourceId: resource,
      maxAmount: 50_000n,
      validAfter: 0n,
      validBefore: VALID_BEFORE,
      nonce: label === null ? allocate(signer) : nonceOf(label),
    };
    const signature = await signer.signTypedData({
      domain: escrowDomain(escrow.address),
      types: debitAuthorizationTypes,
      primaryType: "DebitAuthorization",
      message: authorization,
    });
    return { authorization, amount: PRICE, signature };
  }

  function compactOf(item: Awaited<ReturnType<typeof signedDebit>>) {
    const compact = compactDebit(item);
    if (!compact) throw new Error("a debit signed by a key has a compact encoding");
    return compact;
  }

  async function signedTransfer(label: string, to: Hex) {
    const message = {
      from: payer.account.address,
      to,
      value: PRICE,
      validAfter: 0n,
      validBefore: VALID_BEFORE,
      nonce: nonceOf(label),
    };
    const signature = await payer.signTypedData({
      domain: tokenDomain(token.address),
      types: transferWithAuthorizationTypes,
      primaryType: "TransferWithAuthorization",
      message,
    });
    return { ...message, signature };
  }

  const relayerAccount = { account: relayer.account };
  const rows: Row[] = [];

  const baselineTransfer = await signedTransfer("baseline warm-up", payout.account.address);
  await gasOf(
    token.write.transferWithAuthorization(
      [
        baselineTransfer.from,
        baselineTransfer.to,
        baselineTransfer.value,
        0n,
        VALID_BEFORE,
        baselineTransfer.nonce,
        baselineTransfer.signature,
      ],
      relayerAccount,
    ),
  );
  const transfer = await signedTransfer("baseline", payout.account.address);
  const baseline = await gasOf(
    token.write.transferWithAuthorization(
      [transfer.from, transfer.to, transfer.value, 0n, VALID_BEFORE, transfer.nonce, transfer.signature],
      relayerAccount,
    ),
  );
  rows.push({
    operation: "EIP-3009 `transferWithAuthorization`, buyer → creator, straight to the token (baseline)",
    items: 1,
    gasUsed: baseline,
  });

  rows.push({
    operation: "`debit`, first credit to the payout and the treasury (cold earnings slots)",
    items: 1,
    gasUsed: await gasOf(escrow.write.debit([await signedDebit(null)], relayerAccount)),
  });
  rows.push({
    operation: "`debit`",
    items: 1,
    gasUsed: await gasOf(escrow.write.debit([await signedDebit(null)], relayerAccount)),
  });
  rows.push({
    operation: "`debit`, random 32-byte nonce (a client that does not allocate bitmap nonces)",
    items: 1,
    gasUsed: await gasOf(escrow.write.debit([await signedDebit("debit")], relayerAccount)),
  });

  const breakdowns: Breakdown[] = [];
  for (const size of BATCH_SIZES) {
    const items = [];
    for (let i = 0; i < size; i++) items.push(await signedDebit(null));
    rows.push({
      operation: `\`debitBatch\` of ${size}`,
      items: size,
      gasUsed: await gasOf(escrow.write.debitBatch([items], relayerAccount)),
    });
    const compact = [];
    const firstIndex = nextIndex.get(mainBuyer.address) ?? 0;
    for (let i = 0; i < size; i++) compact.push(compactOf(await signedDebit(null)));
    const hash = await escrow.write.debitBatchCompact([compact], relayerAccount);
    rows.push({
      operation: `\`debitBatchCompact\` of ${size}`,
      items: size,
      gasUsed: await gasOf(Promise.resolve(hash)),
    });
    if (size === 50) {
      const words = new Set([firstIndex, firstIndex + size - 1].map((i) => Math.floor(i / NONCES_PER_WORD)));
      const note = `nonce indexes ${firstIndex} to ${firstIndex + size - 1}, ${words.size === 1 ? "inside one word" : "so one word moves to a slot of its own"}`;
      breakdowns.push({ ...(await breakdownOf(hash, size, "one buyer, one resource")), note });
    }
  }
  const randomForm = [];
  for (let i = 0; i < 50; i++) randomForm.push(compactOf(await signedDebit(`random batch item ${i}`)));
  rows.push({
    operation: "`debitBatchCompact` of 50, random 32-byte nonces",
    items: 50,
    gasUsed: await gasOf(escrow.write.debitBatchCompact([randomForm], relayerAccount)),
  });

  // 50 buyers over 5 resources, one item each, sorted by resource as the relayer sends them: each buyer's account
  // word is cold. Every buyer has paid once before (its deposit and first debit), as in a running marketplace.
  const manyBuyers: DebitSigner[] = Array.from({ length: SPREAD_BUYERS }, (_, i) => {
    const account = privateKeyToAccount(keccak256(toHex(`gas-report buyer ${i}`)));
    return { address: account.address, signTypedData: (p) => account.signTypedData(p as never) };
  });
  await gasOf(token.write.mint([admin.account.address, funds], { account: admin.account }));
  await gasOf(token.write.approve([escrow.address, funds], { account: admin.account }));
  for (const b of manyBuyers) await gasOf(escrow.write.depositFor([b.address, 1_000_000n], { account: admin.account }));
  const resourceOf = (i: number) => spreadResources[i % SPREAD_RESOURCES] as Hex;
  const spreadBatch = async () => {
    const signed = [];
    for (const [i, b] of manyBuyers.entries()) signed.push({ i, item: await signedDebit(null, b, resourceOf(i)) });
    signed.sort((x, y) => (x.i % SPREAD_RESOURCES) - (y.i % SPREAD_RESOURCES) || x.i - y.i);
    return signed.map(({ item }) => compactOf(item));
  };
  await gasOf(escrow.write.debitBatchCompact([await spreadBatch()], relayerAccount));
  const spreadHash = await escrow.write.debitBatchCompact([await spreadBatch()], relayerAccount);
  rows.push({
    operation: `\`debitBatchCompact\` of 50: ${SPREAD_BUYERS} buyers, ${SPREAD_RESOURCES} resources, one item per buyer`,
    items: 50,
    gasUsed: await gasOf(Promise.resolve(spreadHash)),
  });
  breakdowns.push(await breakdownOf(spreadHash, 50, `${SPREAD_BUYERS} buyers, ${SPREAD_RESOURCES} resources`));

  const exactPayment = async (label: string) => {
    const { from, value, validAfter, validBefore, nonce, signature } = await signedTransfer(label, escrow.address);
    return { resourceId, from, value, validAfter, validBefore, nonce, signature };
  };
  await gasOf(escrow.write.settleExact([await exactPayment("exact warm-up")], relayerAccount));
  rows.push({
    operation: "`settleExact` (escrow pulls the EIP-3009 transfer and splits it)",
    items: 1,
    gasUsed: await gasOf(escrow.write.settleExact([await exactPayment("exact")], relayerAccount)),
  });
  return { rows, baseline, breakdowns };

  /** Where the gas of a batch goes, per item, from the node's opcode trace of the transaction. */
  async function breakdownOf(hash: Hex, items: number, shape: string): Promise<Breakdown> {
    const transaction = await publicClient.getTransaction({ hash });
    const { gasUsed } = await publicClient.getTransactionReceipt({ hash });
    const trace = (await publicClient.request({
      method: "debug_traceTransaction",
      params: [hash, { disableStack: true, disableMemory: true, disableStorage: true }],
    } as never)) as { structLogs: StructLog[] };
    const steps = trace.structLogs;
    const totals = { storage: 0n, signature: 0n, logs: 0n, registry: 0n };
    for (let k = 0; k < steps.length; k++) {
      const step = steps[k];
      if (step?.depth !== 1) continue;
      const next = steps[k + 1];
      if (step.op === "SLOAD" || step.op === "SSTORE") totals.storage += BigInt(step.gasCost);
      else if (step.op.startsWith("LOG")) totals.logs += BigInt(step.gasCost);
      else if (step.op === "STATICCALL" && next) {
        // A precompile (ecrecover) runs without a frame of its own; a contract call (the registry) opens one.
        let back = k + 1;
        while ((steps[back]?.depth ?? 0) > 1) back++;
        const cost = BigInt(step.gas) - BigInt(steps[back]?.gas ?? step.gas);
        if (next.depth === 1) totals.signature += cost;
        else totals.registry += cost;
      }
    }
    const input = hexToBytes(transaction.input);
    const calldata = input.reduce((sum, byte) => sum + (byte === 0 ? 4n : 16n), 0n);
    const n = BigInt(items);
    const parts: Array<[string, bigint]> = [
      ["storage read and written (SLOAD, SSTORE)", totals.storage],
      ["calldata (16 gas per non-zero byte, 4 per zero byte)", calldata],
      ["signature recovery (ecrecover precompile)", totals.signature],
      ["`BatchDebited` logs", totals.logs],
      ["the transaction's 21,000 base cost, shared", 21_000n],
      ["registry lookups (one per run of items for one resource)", totals.registry],
    ];
    const accounted = parts.reduce((sum, [, gas]) => sum + gas, 0n);
    parts.push(["everything else: decoding, hashing, checks, memory", gasUsed - accounted]);
    return { shape, items, gasUsed, parts: parts.map(([what, gas]) => [what, gas / n]) };
  }
}

type StructLog = { op: string; gas: number; gasCost: number; depth: number };
/** Gas per item of one batch, by what it pays for. */
type Breakdown = { shape: string; items: number; gasUsed: bigint; parts: Array<[string, bigint]>; note?: string };

/** The targets per item, as a fraction of the baseline, for the two batch shapes broken down. */
const TARGETS = [
  { shape: "one buyer, one resource", ratio: 0.15 },
  { shape: `${SPREAD_BUYERS} buyers, ${SPREAD_RESOURCES} resources`, ratio: 0.25 },
];

function render({ rows, baseline, breakdowns }: { rows: Row[]; baseline: bigint; breakdowns: Breakdown[] }): string {
  const format = (value: bigint) => value.toLocaleString("en-US");
  const ratioOf = (perItem: bigint) => (Number((perItem * 1000n) / baseline) / 1000).toFixed(3);
  const lines = [
    "# Gas",
    "",
    "Generated by `npm run gas` (`node bench/gasReport.ts` under Node 22); do not edit by hand.",
    "",
    `Measured on the embedded Hardhat chain (EDR, chain id 5042002), ${describeCompilerSettings(compilerSettingsOf(hre))}. ` +
      `Each figure is a receipt's \`gasUsed\`, which **includes the 21,000 base cost of a transaction** and its calldata; ` +
      `in a batch that base cost is shared by all items. ` +
      `Amounts are ${PRICE} base units; the buyers, resources, payouts and treasury already hold balances, so the ` +
      `storage written is the steady state of a running marketplace (except in the row that says otherwise). Nonces ` +
      "are bitmap nonces allocated as the buyer SDK allocates them (consecutive indexes, so a buyer's calls share a " +
      "word), except in the rows that say random nonces.",
    "",
    "| operation | items | gasUsed | gas per item | per item vs baseline |",
    "|---|---:|---:|---:|---:|",
  ];
  for (const row of rows) {
    const perItem = row.gasUsed / BigInt(row.items);
    lines.push(
      `| ${row.operation} | ${row.items} | ${format(row.gasUsed)} | ${format(perItem)} | ${ratioOf(perItem)}× |`,
    );
  }
  lines.push(
    "",
    "The baseline is what a stock x402 `exact` payment costs when it goes straight to the creator: one EIP-3009 " +
      "transfer, with no split and no escrow. `settleExact` performs that same transfer to the escrow and then credits " +
      "the creator and treasury shares; `debit` moves no tokens at all (it checks the signed authorization, spends the " +
      "nonce and moves balances inside the escrow), and claims are paid out later, in bulk.",
    "",
    "## Targets",
    "",
    "| batch of 50 (`debitBatchCompact`) | target per item | measured per item | vs baseline | met |",
    "|---|---:|---:|---:|---|",
    ...TARGETS.map(({ shape, ratio }) => {
      const measured = breakdowns.find((b) => b.shape === shape);
      if (!measured) throw new Error(`no breakdown for ${shape}`);
      const perItem = measured.gasUsed / BigInt(measured.items);
      const target = (baseline * BigInt(Math.round(ratio * 1000))) / 1000n;
      return `| ${shape} | ≤ ${ratio}× = ${format(target)} | ${format(perItem)} | ${ratioOf(perItem)}× | ${perItem <= target ? "yes" : "**no**"} |`;
    }),
    "",
    `The targets were set against the 68,347 gas of TestStablecoin's transfer, the baseline before the local chain ran ` +
      `Circle's FiatToken; against it the two batches measure ` +
      breakdowns
        .map((b) => `${(Number(b.gasUsed / BigInt(b.items)) / 68_347).toFixed(3)}× (${b.shape})`)
        .join(" and ") +
      ", also within 0.15× and 0.25×.",
    "",
    "## Where a batched debit's gas goes",
    "",
    "Per item of the two `debitBatchCompact` batches of 50 above, from the node's opcode trace " +
      "(`debug_traceTransaction`) of each transaction; the last row is the receipt's `gasUsed` less every row above it." +
      breakdowns
        .filter((b) => b.note)
        .map((b) => ` The batch of ${b.shape} spends ${b.note}.`)
        .join(""),
    "",
    `| what | ${breakdowns.map((b) => b.shape).join(" | ")} |`,
    `|---|${breakdowns.map(() => "---:").join("|")}|`,
    ...(breakdowns[0]?.parts ?? []).map(
      ([what], k) => `| ${what} | ${breakdowns.map((b) => format(b.parts[k]?.[1] ?? 0n)).join(" | ")} |`,
    ),
    `| **total per item** | ${breakdowns.map((b) => `**${format(b.gasUsed / BigInt(b.items))}**`).join(" | ")} |`,
    "",
    "What a debit still pays for itself: its calldata (six static words), the recovery of its own signature, the " +
      "hashing of its own authorization, and its 68 bytes of log data. Every debit is checked against its own " +
      "signature and its own cap, in a batch as alone. What it shares:",
    "",
    "- **Nonces as bits** (as Permit2's unordered nonces): a bitmap nonce (the tag " +
      '`bytes4(keccak256("ServiceEscrow.bitmapNonce"))`, 24 zero bytes, a uint32 index n; docs/protocol.md) spends ' +
      "bit n % 96 of the buyer's nonce word n / 96. The buyer's current word lives in the same storage word as the " +
      "buyer's balance, so a debit's nonce costs no storage of its own; when a later word becomes current (every 96 " +
      "calls of a buyer) the old word's bits move to a slot of their own (one new slot per 96 calls). A random " +
      "32-byte nonce still works and spends a slot of its own (about 22,100 gas), as before: the rows with random " +
      "nonces.",
    "- **One read and one write per buyer run**: consecutive items of one buyer (the relayer sorts a batch so that " +
      "they are) read the buyer's account word (balance, current nonce word, whether a spend limit is in force) " +
      "once, and write it once, after the run; a buyer without a spend limit never reads it.",
    "- **One credit and one log per resource run**: consecutive items for one resource share one registry lookup, " +
      "one credit of the creator shares and one `BatchDebited(resourceId, feeBps, debits)` log, whose `debits` packs " +
      "(buyer, nonce, amount) in 68 bytes per debit; `services/protocol/parseDebits.ts` decodes it, so every debit " +
      "stays findable from chain data alone (the relayer's crash recovery, the indexer, the buyer SDK's ledger).",
    "- **The compact encoding** (`debitBatchCompact`): six static words per item, the two times packed beside the " +
      "buyer, the two amounts in one word and the signature in EIP-2098 form; the escrow rebuilds the authorization " +
      "and the 65 signature bytes from them, so the signature is checked against exactly what the buyer signed.",
    "",
    "With many buyers, each item of a buyer reads and writes that buyer's account word for the first time in the " +
      "transaction (a cold slot: 2,100 to read, 2,900 to write), and each run of a resource pays a cold registry " +
      "lookup and a cold earnings slot: that, not the debit, is the difference between the two columns.",
    "",
  );
  return lines.join("\n");
}

const result = await measure();
await writeFile(DOC, render(result));
process.stdout.write(`${render(result)}\n`);
