import type { Server } from "node:http";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { expect } from "chai";
import type { Hex } from "viem";
import { decodeFunctionData } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import type { LocalChain } from "../../../../testkit/chain/localChain.ts";
import { devKey, ROLE, startLocalChain } from "../../../../testkit/chain/localChain.ts";
import { sleep } from "../../../../testkit/sleep.ts";
import { signEscrowPayment } from "../../../buyer/src/sdk/signPayment.ts";
import { abiOf } from "../../../protocol/artifacts.ts";
import { debitAuthorization } from "../../../protocol/typedData.ts";
import type { RelayerParameters } from "../../relayer/createRelayer.ts";
import { createRelayer } from "../../relayer/createRelayer.ts";
import type { DebitItem } from "../../relayer/debitItem.ts";
import type { DebitOutcome } from "../../relayer/debitOutcome.ts";

const CAP = 50_000n;

/** An RPC endpoint in front of the chain that holds every `eth_sendRawTransaction` for `delayMs` (a slow broadcast). */
async function slowBroadcastProxy(target: string, delayMs: number): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", async () => {
      const body = Buffer.concat(chunks).toString("utf8");
      if (body.includes("eth_sendRawTransaction")) await sleep(delayMs);
      const answer = await fetch(target, { method: "POST", headers: { "content-type": "application/json" }, body });
      res.writeHead(answer.status, { "content-type": "application/json" }).end(await answer.text());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

describe("relayer batching", function () {
  let chain: LocalChain;
  let resourceId: Hex;
  const buyer = privateKeyToAccount(devKey(ROLE.buyer));

  before(async function () {
    chain = await startLocalChain();
    resourceId = await chain.registerResource({ slug: "echo", cap: CAP });
    await chain.fundBuyer(ROLE.buyer, CAP * 100n);
  });

  after(async function () {
    await chain?.close();
  });

  const relayerWith = (
    settings: Pick<RelayerParameters, "batchWindowMs" | "batchMaxItems" | "minBatchIntervalMs"> & { rpcUrl?: string },
  ) =>
    createRelayer({
      rpcUrl: chain.rpcUrl,
      escrow: chain.addresses.escrow,
      registry: chain.addresses.registry,
      relayerKeys: [devKey(ROLE.relayer)],
      facilitatorKey: devKey(ROLE.facilitator),
      receiptTimeoutMs: 10_000,
      ...settings,
    });

  async function debitItem(amount = 1_000n, maxAmount = CAP): Promise<DebitItem> {
    const validBefore = BigInt(Math.floor(Date.now() / 1000) + 600);
    const p = await signEscrowPayment({
      account: buyer,
      escrow: chain.addresses.escrow,
      resourceId,
      maxAmount,
      validBefore,
    });
    return {
      authorization: debitAuthorization(p.authorization),
      amount,
      signature: p.signature,
    };
  }
  const items = (count: number) => Promise.all(Array.from({ length: count }, () => debitItem()));

  /** Debits per transaction, from the outcomes (each must be a debit). */
  function perTransaction(outcomes: DebitOutcome[]): Map<Hex, number> {
    const counts = new Map<Hex, number>();
    for (const outcome of outcomes) {
      expect(outcome.kind).to.equal("debited");
      counts.set(outcome.transaction, (counts.get(outcome.transaction) ?? 0) + 1);
    }
    return counts;
  }

  it("sends the debits that arrive within the window as one transaction", async function () {
    const relayer = relayerWith({ batchWindowMs: 50, batchMaxItems: 64 });
    const outcomes = await Promise.all((await items(10)).map((item) => relayer.debit(item)));
    expect([...perTransaction(outcomes).values()]).to.deep.equal([10]);
  });

  it("sends a batch compact (debitBatchCompact), or in full (debitBatch) when an item has no compact encoding", async function () {
    const relayer = relayerWith({ batchWindowMs: 50, batchMaxItems: 64 });
    const functionOf = async (outcomes: DebitOutcome[]) => {
      const [transaction, ...others] = [...perTransaction(outcomes).keys()];
      expect(others).to.have.length(0);
      const { input } = await chain.publicClient.getTransaction({ hash: transaction! });
      return decodeFunctionData({ abi: abiOf("PaymentEscrow"), data: input }).functionName;
    };
    const keySigned = await items(3);
    expect(await functionOf(await Promise.all(keySigned.map((item) => relayer.debit(item))))).to.equal(
      "debitBatchCompact",
    );
    // A cap of 2^128 does not fit the compact form: that one item sends the batch in full.
    const mixed = [...(await items(2)), await debitItem(1_000n, 2n ** 128n)];
    expect(await functionOf(await Promise.all(mixed.map((item) => relayer.debit(item))))).to.equal("debitBatch");
  });

  it("cuts a batch at batchMaxItems", async function () {
    const relayer = relayerWith({ batchWindowMs: 50, batchMaxItems: 4 });
    const outcomes = await Promise.all((await items(10)).map((item) => relayer.debit(item)));
    const sizes = [...perTransaction(outcomes).values()].sort();
    expect(sizes).to.deep.equal([2, 4, 4]);
  });

  it("spaces batches by minBatchIntervalMs (committed settlement): what arrives meanwhile goes out together", async function () {
    const relayer = relayerWith({ batchWindowMs: 50, batchMaxItems: 64, minBatchIntervalMs: 3_000 });
    const [first, ...rest] = await items(9);
    const firstOutcome = relayer.debit(first!);
    await sleep(100);
    // The first batch went out after its 50 ms window; the next may not go before 3 s after it, so these eight,
    // arriving one every 20 ms, wait and go in one batch. (With 400 ms, a machine starved to a quarter of its speed
    // stretched their arrival past the interval, and they went in two.)
    const later: Promise<DebitOutcome>[] = [];
    for (const item of rest) {
      later.push(relayer.debit(item));
      await sleep(20);
    }
    const outcomes = await Promise.all([firstOutcome, ...later]);
    expect([...perTransaction(outcomes).values()]).to.deep.equal([1, 8]);
    const spaced = relayerWith({ batchWindowMs: 50, batchMaxItems: 64, minBatchIntervalMs: 0 });
    const unspaced: Promise<DebitOutcome>[] = [spaced.debit((await items(1))[0]!)];
    await sleep(100);
    for (const item of await items(4)) {
      unspaced.push(spaced.debit(item));
      await sleep(80);
    }
    expect(
      perTransaction(await Promise.all(unspaced)).size,
      "without spacing each 50 ms window is a batch",
    ).to.be.above(2);
  });

  it("holds what arrives while its signer is broadcasting and sends it together afterwards", async function () {
    const proxy = await slowBroadcastProxy(chain.rpcUrl, 1_500);
    try {
      const relayer = relayerWith({ rpcUrl: proxy.url, batchWindowMs: 5, batchMaxItems: 64 });
      const [first, ...later] = await items(13);
      const firstOutcome = relayer.debit(first!);
      await sleep(100);
      // Twelve debits 10 ms apart, each past the 5 ms window: on an idle signer each would be a batch of its own.
      const laterOutcomes: Promise<DebitOutcome>[] = [];
      for (const item of later) {
        laterOutcomes.push(relayer.debit(item));
        await sleep(10);
      }
      const counts = perTransaction([await firstOutcome, ...(await Promise.all(laterOutcomes))]);
      expect([...counts.values()].sort((a, b) => a - b)).to.deep.equal([1, 12]);
      await relayer.drain();
    } finally {
      proxy.server.close();
    }
  });
});
