import { expect } from "chai";
import type { Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import type { LocalChain } from "../../../testkit/chain/localChain.ts";
import { devKey, ROLE, startLocalChain } from "../../../testkit/chain/localChain.ts";
import type { RpcProxy } from "../../../testkit/chain/rpcProxy.ts";
import { jsonRpcRateLimit, serveRpcProxy } from "../../../testkit/chain/rpcProxy.ts";
import { committedHarness } from "../../../testkit/facilitator/committedHarness.ts";
import { facilitatorEnv, getJson, manualClock } from "../../../testkit/facilitator/startFacilitator.ts";
import { sleep } from "../../../testkit/sleep.ts";
import { until } from "../../../testkit/until.ts";
import { createFacilitator } from "../createFacilitator.ts";
import type { Clock } from "../facilitatorContext.ts";
import { loadFacilitatorConfig } from "../loadFacilitatorConfig.ts";

const CAP = 50_000n;
/** What a hosted provider's URL carries and no metric may: the API key in its path. */
const API_KEY = "k3y-in-the-path-0123456789";

/** Every sample of a Prometheus text exposition, keyed by `name{labels}` as written. */
async function scrape(url: string): Promise<{ text: string; value(series: string): number | undefined }> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const samples = new Map<string, number>();
  for (const line of text.split("\n")) {
    if (!line || line.startsWith("#")) continue;
    const at = line.lastIndexOf(" ");
    samples.set(line.slice(0, at), Number(line.slice(at + 1)));
  }
  return { text, value: (series) => samples.get(series) };
}

/**
 * The metrics docs/operations.md's alerts read (services/facilitator/alerts.yml), each against what really happened
 * on a local chain behind the fault-injecting RPC proxy: RPC errors by kind and endpoint, committed debits not mined
 * yet and their settlement latency, each relayer's balance in full batches, and the escrow book's lag, which /ready
 * reflects.
 */
describe("facilitator: the metrics an operator alerts on", function () {
  this.timeout(180_000);
  let chain: LocalChain;
  let rpc: RpcProxy;
  let h: ReturnType<typeof committedHarness>;
  const relayer = privateKeyToAccount(devKey(ROLE.relayer)).address;

  before(async function () {
    chain = await startLocalChain();
    const resourceId: Hex = await chain.registerResource({ slug: "echo", cap: CAP });
    await chain.fundBuyer(ROLE.buyer, CAP * 20n);
    h = committedHarness({ chain, buyer: privateKeyToAccount(devKey(ROLE.buyer)), resourceId, cap: CAP });
  });

  beforeEach(async function () {
    rpc = await serveRpcProxy(chain.connection.provider);
  });

  afterEach(async function () {
    await rpc?.close();
  });

  after(async function () {
    await chain?.close();
  });

  const start = (env: Record<string, string> = {}, clock?: Clock) =>
    createFacilitator(
      loadFacilitatorConfig({
        ...facilitatorEnv(chain),
        RPC_URL: `${rpc.url}/v2/${API_KEY}`,
        DATA_DIR: "memory://",
        LOG_LEVEL: "silent",
        RECEIPT_TIMEOUT_MS: "10000",
        SETTLE_WAIT_MS: "20000",
        BATCH_WINDOW_MS: "50",
        ...env,
      }),
      { backgroundIntervalMs: 100, clock },
    );

  it("counts failed RPC requests by kind, endpoint host and method, with nothing of the URL's path", async function () {
    const facilitator = await start();
    try {
      const endpoint = new URL(rpc.url).host;
      const series = `facilitator_rpc_errors_total{kind="rate_limited",endpoint="${endpoint}",method="eth_sendRawTransaction"}`;
      expect((await scrape(facilitator.url)).value(series)).to.equal(undefined);
      rpc.failNext("eth_sendRawTransaction", jsonRpcRateLimit());
      const { settled } = await h.pay(facilitator.url, 1_000n);
      expect(settled.status, JSON.stringify(settled.body)).to.equal(200);
      const metrics = await scrape(facilitator.url);
      expect(metrics.value(series)).to.equal(1);
      expect(metrics.text).not.to.include(API_KEY);
    } finally {
      await facilitator.stop();
    }
  });

  it("shows a committed debit not mined yet (count, oldest age), then its commit-to-mined latency", async function () {
    const facilitator = await start({ SETTLEMENT: "committed" });
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    rpc.intercept("eth_sendRawTransaction", async (call, next) => {
      await held;
      return next(call);
    });
    try {
      const before = await scrape(facilitator.url);
      expect(before.value("facilitator_committed_unmined_debits")).to.equal(0);
      expect(before.value("facilitator_settlement_latency_seconds_count")).to.equal(0);
      const { settled } = await h.pay(facilitator.url, 1_000n);
      expect(settled.body.status, JSON.stringify(settled.body)).to.equal("committed");
      await sleep(2_100);
      const unmined = await scrape(facilitator.url);
      expect(unmined.value("facilitator_committed_unmined_debits")).to.equal(1);
      expect(unmined.value("facilitator_committed_unmined_oldest_seconds")).to.be.within(2, 30);
      release();
      const mined = await until(async () => {
        const now = await scrape(facilitator.url);
        return now.value("facilitator_committed_unmined_debits") === 0 ? now : undefined;
      });
      expect(mined.value("facilitator_committed_unmined_oldest_seconds")).to.equal(0);
      expect(mined.value("facilitator_settlement_latency_seconds_count")).to.equal(1);
      expect(mined.value("facilitator_settlement_latency_seconds_sum")).to.be.at.least(2);
      expect(mined.value('facilitator_settlement_latency_seconds_bucket{le="1"}')).to.equal(0);
    } finally {
      release();
      rpc.intercept("eth_sendRawTransaction", undefined);
      await facilitator.stop();
    }
  });

  it("gives each relayer's balance in full batches at the current fee, and the escrow book's lag", async function () {
    const facilitator = await start();
    try {
      await until(async () => ((await getJson(`${facilitator.url}/ready`)).body.ready === true ? true : undefined));
      const metrics = await scrape(facilitator.url);
      const { minimumBalance } = await facilitator.ctx.relayer.funding();
      const balance = await chain.publicClient.getBalance({ address: relayer });
      const batches = metrics.value(`facilitator_relayer_balance_batches{address="${relayer}"}`);
      expect(batches).to.be.closeTo(Number(balance) / Number(minimumBalance), 0.01 * (batches ?? 0));
      expect(batches).to.be.greaterThan(1);
      expect(metrics.value("facilitator_escrow_book_lag_blocks")).to.be.within(0, 1);
      expect(metrics.value("facilitator_escrow_book_current_age_seconds")).to.be.within(0, 2);
    } finally {
      await facilitator.stop();
    }
  });

  it("/ready is 503 while the escrow book has not reached the head for longer than its limit, and 200 again after", async function () {
    const clock = manualClock();
    const facilitator = await start({ ESCROW_BOOK_MAX_LAG_SECONDS: "60" }, clock);
    try {
      await until(async () => ((await getJson(`${facilitator.url}/ready`)).body.ready === true ? true : undefined));
      // The book can no longer read the escrow's events, and a block it would need is mined.
      rpc.intercept("eth_getLogs", async () => {
        throw { code: -32000, message: "logs unavailable" };
      });
      await chain.fundBuyer(ROLE.other, 1_000n);
      clock.advance(61);
      const behind = await until(async () => {
        const ready = await getJson(`${facilitator.url}/ready`);
        return ready.status === 503 ? ready : undefined;
      });
      expect(behind.body.reason).to.match(/escrow book has not reached the chain's head for \d+ s \(limit 60 s\)/);
      expect(behind.body.error, "the error body every 5xx carries").to.deep.equal({
        code: "not_ready",
        message: behind.body.reason,
      });
      expect(behind.body.escrowBook.currentAgeSeconds).to.be.at.least(61);
      expect((await scrape(facilitator.url)).value("facilitator_escrow_book_current_age_seconds")).to.be.at.least(61);
      rpc.intercept("eth_getLogs", undefined);
      await until(async () => ((await getJson(`${facilitator.url}/ready`)).body.ready === true ? true : undefined));
    } finally {
      await facilitator.stop();
    }
  });

  it("/ready is 503 while RPC_URL serves another chain than the test network, naming both ids", async function () {
    // Before, /ready only reported the chain id it read: a wrong RPC_URL answered 200.
    const facilitator = await start();
    try {
      await until(async () => ((await getJson(`${facilitator.url}/ready`)).body.ready === true ? true : undefined));
      rpc.intercept("eth_chainId", async () => "0x1");
      const wrong = await until(async () => {
        const ready = await getJson(`${facilitator.url}/ready`);
        return ready.status === 503 ? ready : undefined;
      });
      expect(wrong.body.reason).to.equal("RPC_URL serves chain 1, not 5042002");
      rpc.intercept("eth_chainId", undefined);
      await until(async () => ((await getJson(`${facilitator.url}/ready`)).body.ready === true ? true : undefined));
    } finally {
      await facilitator.stop();
    }
  });
});
