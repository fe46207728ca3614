import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { expect } from "chai";
import type { Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import type { LocalChain } from "../../../../testkit/chain/localChain.ts";
import { devKey, startLocalChain } from "../../../../testkit/chain/localChain.ts";
import { committedHarness } from "../../../../testkit/facilitator/committedHarness.ts";
import { startFacilitator } from "../../../../testkit/facilitator/startFacilitator.ts";
import { until } from "../../../../testkit/until.ts";
import { bitmapNonce, bitmapNonceIndex, LEDGER_NONCE_INDEXES, NONCES_PER_WORD } from "../../../protocol/bitmapNonce.ts";
import { buyerChain } from "./buyerChain.ts";
import { openSpendLedger } from "./openSpendLedger.ts";

const HOLD_NONCES = fileURLToPath(new URL("../../../../testkit/buyer/holdNonces.ts", import.meta.url));

/** Runs testkit/buyer/holdNonces.ts: one process of the key holding `count` payments; resolves with their idemKeys. */
function holdInProcess(args: string[]): Promise<Hex[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [HOLD_NONCES, ...args], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.on("data", (chunk) => (out += chunk));
    child.stderr.on("data", (chunk) => (err += chunk));
    child.on("exit", (code) => (code === 0 ? resolve(JSON.parse(out) as Hex[]) : reject(new Error(err))));
  });
}

describe("the spend ledger's bitmap nonces", function () {
  let chain: LocalChain;
  let dir: string;
  const buyer = privateKeyToAccount(devKey(12)).address;

  before(async function () {
    chain = await startLocalChain();
  });
  after(async () => chain?.close());
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "ledger-nonces-"));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("two processes of one key allocating at once never hold one nonce twice, and fill words in order", async function () {
    const args = [chain.rpcUrl, chain.addresses.escrow, buyer, dir, "12"];
    const [first, second] = await Promise.all([holdInProcess(args), holdInProcess(args)]);
    const all = [...(first ?? []), ...(second ?? [])];
    expect(all).to.have.length(24);
    expect(new Set(all).size, "a nonce allocated twice").to.equal(24);
    const indexes = all.map((nonce) => bitmapNonceIndex(nonce)).sort((a, b) => (a ?? 0) - (b ?? 0));
    expect(indexes).to.deep.equal(Array.from({ length: 24 }, (_, i) => i));
    // Consecutive indexes: 24 calls of the key share one word of its bitmap.
    expect(new Set(indexes.map((i) => Math.floor((i ?? 0) / NONCES_PER_WORD))).size).to.equal(1);
  });

  it("continues past the highest index a reopened ledger holds, and keeps an idemKey given to it", async function () {
    const ledger = () =>
      openSpendLedger({ dir, chain: buyerChain({ rpcUrl: chain.rpcUrl, escrow: chain.addresses.escrow }), buyer });
    const hold = { resourceId: `0x${"cd".repeat(32)}` as Hex, cap: 1n, validBefore: 4_102_444_800n };
    const a = await ledger().hold(hold, () => {});
    const given = `0x${"11".repeat(32)}` as Hex;
    expect(await ledger().hold({ ...hold, idemKey: given }, () => {})).to.equal(given);
    const b = await ledger().hold(hold, () => {});
    expect([bitmapNonceIndex(a), bitmapNonceIndex(b)]).to.deep.equal([0, 1]);
    // A nonce of a process without a ledger (processNonces.ts) sits above the ledger's range: it never moves the
    // ledger's count there.
    const processes = bitmapNonce(LEDGER_NONCE_INDEXES + 5 * NONCES_PER_WORD);
    expect(await ledger().hold({ ...hold, idemKey: processes }, () => {})).to.equal(processes);
    expect(bitmapNonceIndex(await ledger().hold(hold, () => {}))).to.equal(2);
  });

  it("a ledger built after the key's older payments (moved aside, another machine) holds no nonce the chain spent", async function () {
    // Before, a new ledger counted only the debits of its lookback and allocated index 0 again: each of the key's
    // old indexes was refused nonce_used, the call reported payment_unknown and its cap held for an hour.
    const payer = privateKeyToAccount(devKey(13));
    const resourceId = await chain.registerResource({ slug: "ledger-floor", cap: 50_000n });
    await chain.fundBuyer(13, 1_000_000n);
    const facilitator = await startFacilitator(chain, { env: { SETTLEMENT: "committed", HOLD_MAX_SECONDS: "0" } });
    try {
      const h = committedHarness({ chain, buyer: payer, resourceId, cap: 50_000n });
      const paid: Hex[] = [];
      for (let index = 0; index < 3; index++)
        paid.push((await h.pay(facilitator.url, 1_000n, { nonce: bitmapNonce(index) })).payload.authorization.nonce);
      for (const nonce of paid)
        await until(async () => ((await h.debitsOf(nonce)).length === 1 ? true : undefined), 20_000, "mined");
    } finally {
      await facilitator.stop();
    }
    // Past those debits' blocks, a ledger whose lookback reads none of them.
    await chain.connection.provider.request({ method: "evm_increaseTime", params: [60] });
    await chain.connection.provider.request({ method: "evm_mine", params: [] });
    const ledger = openSpendLedger({
      dir,
      chain: buyerChain({ rpcUrl: chain.rpcUrl, escrow: chain.addresses.escrow }),
      buyer: payer.address,
      lookbackMs: 1_000,
    });
    const hold = { resourceId, cap: 1n, validBefore: 4_102_444_800n };
    expect(bitmapNonceIndex(await ledger.hold(hold, () => {}))).to.equal(3);
    expect(bitmapNonceIndex(await ledger.hold(hold, () => {})), "and on from there").to.equal(4);
  });
});

describe("the spend ledger's hold whose nonce is spent where no log shows the debit", function () {
  this.timeout(120_000);
  let chain: LocalChain;
  let dir: string;

  before(async function () {
    chain = await startLocalChain();
  });
  after(async () => chain?.close());
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "ledger-unseen-"));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("is looked for up to its validBefore only, and a day past it is recorded spent: paid at most its cap, no longer held or searched", async function () {
    // Before, such a hold (a provider that drops logs, a clock ten minutes off) stayed held against the budgets for
    // good, and every sync read the logs from its signing to the head again: a day of blocks more each day.
    const payer = privateKeyToAccount(devKey(14));
    const resourceId = await chain.registerResource({ slug: "ledger-unseen", cap: 50_000n });
    await chain.fundBuyer(14, 1_000_000n);
    const ranges: { fromBlock: bigint; toBlock: bigint }[] = [];
    const real = buyerChain({ rpcUrl: chain.rpcUrl, escrow: chain.addresses.escrow });
    // A provider whose logs never show this buyer's debit.
    const publicClient = new Proxy(real.publicClient, {
      get: (client, key) =>
        key === "getLogs"
          ? async (args: { fromBlock: bigint; toBlock: bigint }) => {
              ranges.push({ fromBlock: args.fromBlock, toBlock: args.toBlock });
              return [];
            }
          : Reflect.get(client, key),
    });
    const ledger = () => openSpendLedger({ dir, chain: { ...real, publicClient }, buyer: payer.address });
    const validForSeconds = 600;
    const validBefore = BigInt(Math.floor(Date.now() / 1000) + validForSeconds);
    const idemKey = await ledger().hold({ resourceId, cap: 50_000n, validBefore }, () => {});
    const facilitator = await startFacilitator(chain, { env: { SETTLEMENT: "committed", HOLD_MAX_SECONDS: "0" } });
    try {
      const h = committedHarness({ chain, buyer: payer, resourceId, cap: 50_000n });
      await h.pay(facilitator.url, 1_000n, { nonce: idemKey, validForSeconds });
      await until(async () => ((await h.debitsOf(idemKey)).length === 1 ? true : undefined), 20_000, "mined");
    } finally {
      await facilitator.stop();
    }
    const provider = chain.connection.provider;
    const chainTime = async () => Number((await real.publicClient.getBlock({ blockTag: "latest" })).timestamp);
    // Past validBefore, then 200 blocks more: the search reads none of them (no debit can be mined after validBefore).
    await provider.request({ method: "evm_increaseTime", params: [Number(validBefore) - (await chainTime()) + 5] });
    await provider.request({ method: "hardhat_mine", params: ["0xc8", "0x1"] });
    ranges.length = 0;
    const due = await ledger().read();
    const latest = await real.publicClient.getBlockNumber();
    // One read to the head (the scan since the last); the search for the debit ends before the 200 blocks.
    expect(
      ranges.filter((r) => r.toBlock === latest),
      "reads to the head",
    ).to.have.length(1);
    expect(
      ranges.filter((r) => r.toBlock <= latest - 190n),
      "the search",
    ).to.have.length(1);
    expect(due.held, "spent, its debit not found: still held").to.equal(50_000n);
    expect(due.payment(idemKey)).to.include({ spentUnseen: false, released: false });

    // A day past validBefore: recorded spent, paid, no longer held.
    await provider.request({ method: "evm_increaseTime", params: [24 * 3600] });
    await provider.request({ method: "evm_mine", params: [] });
    const settled = await ledger().read();
    expect(settled.held).to.equal(0n);
    expect(settled.payment(idemKey)).to.include({ spentUnseen: true, released: false });
    expect(settled.payments().find((p) => p.idemKey === idemKey)?.status).to.equal("paid");
    // Searched no more: the next read asks only for the blocks since the last scan.
    ranges.length = 0;
    const again = await ledger().read();
    expect(again.payment(idemKey).spentUnseen, "as the file reads it back").to.equal(true);
    const head = await real.publicClient.getBlockNumber();
    expect(ranges.every((r) => r.fromBlock >= head - 64n)).to.equal(true);
  });
});
