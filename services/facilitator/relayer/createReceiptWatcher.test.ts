import { expect } from "chai";
import type { Hex, PublicClient } from "viem";
import { createPublicClient, createWalletClient, http } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import type { LocalChain } from "../../../testkit/chain/localChain.ts";
import { devKey, ROLE, startLocalChain } from "../../../testkit/chain/localChain.ts";
import { sleep } from "../../../testkit/sleep.ts";
import { serviceChain } from "../../protocol/chain.ts";
import { createReceiptWatcher } from "./createReceiptWatcher.ts";

describe("the relayer's receipt watcher", function () {
  this.timeout(60_000);
  let chain: LocalChain;
  /** JSON-RPC methods the watcher's client sent, by name. */
  const asked = new Map<string, number>();
  let publicClient: PublicClient;

  before(async function () {
    chain = await startLocalChain();
    const transport = http(chain.rpcUrl, {
      retryCount: 0,
      async onFetchRequest(request) {
        const body = JSON.parse(await request.clone().text()) as { method: string } | { method: string }[];
        for (const { method } of [body].flat()) asked.set(method, (asked.get(method) ?? 0) + 1);
      },
    });
    publicClient = createPublicClient({ chain: serviceChain(chain.rpcUrl), transport }) as PublicClient;
  });

  after(async function () {
    await chain.connection.provider.request({ method: "evm_setAutomine", params: [true] });
    await chain?.close();
  });

  const automine = (on: boolean) => chain.connection.provider.request({ method: "evm_setAutomine", params: [on] });
  const mine = () => chain.connection.provider.request({ method: "evm_mine", params: [] });

  /** Sends `n` plain transfers from the spare account; their hashes. */
  async function send(n: number): Promise<Hex[]> {
    const account = privateKeyToAccount(devKey(ROLE.other));
    const wallet = createWalletClient({ account, chain: serviceChain(chain.rpcUrl), transport: http(chain.rpcUrl) });
    const hashes: Hex[] = [];
    for (let i = 0; i < n; i++) hashes.push(await wallet.sendTransaction({ to: account.address, value: 1n }));
    return hashes;
  }

  it("takes a transaction mined at once with one question, and no watching", async function () {
    const watcher = createReceiptWatcher(publicClient, { pollMs: 20 });
    const [hash] = await send(1);
    asked.clear();
    const receipt = await watcher.firstReceipt([hash as Hex], 5_000);
    expect(receipt?.transactionHash).to.equal(hash);
    expect(Object.fromEntries(asked)).to.deep.equal({ eth_getTransactionReceipt: 1 });
  });

  it("looks for every awaited transaction once per new block, not on a clock of its own", async function () {
    const pollMs = 20;
    // No look on the clock alone here: every look the count below expects is the watcher's own.
    const watcher = createReceiptWatcher(publicClient, { pollMs, staleMs: 60_000 });
    await automine(false);
    try {
      // The first awaited transaction starts the watcher, which has seen no head yet: it is looked for on the first
      // poll too, in case it was mined between its first look and that poll.
      const [first] = await send(1);
      asked.clear();
      const started = Date.now();
      const firstReceipt = watcher.firstReceipt([first as Hex], 10_000);
      await sleep(100);
      const hashes = await send(7);
      const receipts = Promise.all(hashes.map((hash) => watcher.firstReceipt([hash], 10_000)));
      await sleep(500);
      expect(watcher.waiting, "all eight awaited while no block is mined").to.equal(8);
      await mine();
      const mined = [await firstReceipt, ...(await receipts)];
      const elapsed = Date.now() - started;
      expect(mined.map((r) => r?.transactionHash)).to.deep.equal([first, ...hashes]);
      expect(watcher.waiting).to.equal(0);
      // Once when awaited and once in the new block, whatever the wait (on its own backoff, each asked about six
      // times in 600 ms); the first once more.
      expect(asked.get("eth_getTransactionReceipt")).to.equal(3 + 2 * hashes.length);
      // One head question per poll for all of them together.
      expect(asked.get("eth_blockNumber") ?? 0).to.be.at.most(Math.ceil(elapsed / pollMs) + 1);
    } finally {
      await automine(true);
    }
  });

  it("still finds a mined transaction when the node's head stands still (a lagging backend answers it)", async function () {
    // A head that never moves, as from a backend behind a load balancer that stopped following the chain: the
    // receipt, answered by another backend, must still be found, not given up at the deadline and replaced.
    const stuck = await publicClient.getBlockNumber({ cacheTime: 0 });
    const lagging = new Proxy(publicClient, {
      get: (target, key, receiver) =>
        key === "getBlockNumber" ? async () => stuck : Reflect.get(target, key, receiver),
    });
    const watcher = createReceiptWatcher(lagging, { pollMs: 20, staleMs: 200 });
    await automine(false);
    try {
      const [hash] = await send(1);
      const started = Date.now();
      const receipt = watcher.firstReceipt([hash as Hex], 10_000);
      await sleep(300);
      await mine();
      expect((await receipt)?.transactionHash).to.equal(hash);
      expect(Date.now() - started, "found within a stale period of the mining, not at the deadline").to.be.below(2_000);
    } finally {
      await automine(true);
    }
  });

  it("answers null once the wait is over and stops watching", async function () {
    const watcher = createReceiptWatcher(publicClient, { pollMs: 20 });
    await automine(false);
    try {
      const [hash] = await send(1);
      expect(await watcher.firstReceipt([hash as Hex], 150)).to.equal(null);
      expect(watcher.waiting).to.equal(0);
      asked.clear();
      await sleep(100);
      expect(asked.size, "no question once nothing is awaited").to.equal(0);
    } finally {
      await automine(true);
      await mine();
    }
  });

  it("rejects every wait when the node cannot be asked, and serves again once it can", async function () {
    const watcher = createReceiptWatcher(publicClient, { pollMs: 20 });
    await automine(false);
    try {
      const hashes = await send(2);
      const waits = hashes.map((hash) =>
        watcher.firstReceipt([hash], 10_000).then(
          () => "answered",
          () => "failed",
        ),
      );
      await sleep(50);
      await chain.rpc.stop();
      try {
        expect(await Promise.all(waits)).to.deep.equal(["failed", "failed"]);
      } finally {
        await chain.rpc.resume();
      }
      await mine();
      expect((await watcher.firstReceipt(hashes, 5_000))?.transactionHash).to.equal(hashes[0]);
    } finally {
      await automine(true);
    }
  });
});
