import { expect } from "chai";
import type { Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import type { LocalChain } from "../../../../testkit/chain/localChain.ts";
import { devKey, ROLE, startLocalChain } from "../../../../testkit/chain/localChain.ts";
import type { RpcFailure, RpcProxy } from "../../../../testkit/chain/rpcProxy.ts";
import { httpRateLimit, jsonRpcRateLimit, serveRpcProxy } from "../../../../testkit/chain/rpcProxy.ts";
import { committedHarness } from "../../../../testkit/facilitator/committedHarness.ts";
import { facilitatorEnv, getJson } from "../../../../testkit/facilitator/startFacilitator.ts";
import { sleep } from "../../../../testkit/sleep.ts";
import { until } from "../../../../testkit/until.ts";
import { createFacilitator } from "../../createFacilitator.ts";
import { loadFacilitatorConfig } from "../../loadFacilitatorConfig.ts";
import { createLogger } from "../../logger.ts";

const CAP = 50_000n;
const DEBITS = 40;

/**
 * The relayer behind an RPC that faults as hosted providers do. A single rate-limit answer on the first send used to
 * split a batch of 40 debits into 32-40 transactions (any JSON-RPC error was taken for a reverting item), and the
 * retried 429 left 40 raw signed transactions and the buyers' payment signatures in the log.
 */
describe("relayer behind a faulting RPC", function () {
  this.timeout(180_000);
  let chain: LocalChain;
  let resourceId: Hex;
  let h: ReturnType<typeof committedHarness>;
  const buyer = privateKeyToAccount(devKey(ROLE.buyer));
  const relayer = privateKeyToAccount(devKey(ROLE.relayer)).address;

  before(async function () {
    chain = await startLocalChain();
    resourceId = await chain.registerResource({ slug: "echo", cap: CAP });
    await chain.fundBuyer(ROLE.buyer, CAP * 200n);
    h = committedHarness({ chain, buyer, resourceId, cap: CAP });
  });

  after(async function () {
    await chain?.close();
  });

  /** A facilitator on `rpc` (and `settings`) whose log lines are kept, and every raw transaction the relayer sent. */
  async function facilitatorBehind(rpc: RpcProxy, settings: Record<string, string> = {}) {
    const lines: string[] = [];
    const rawTransactions: string[] = [];
    rpc.intercept("eth_sendRawTransaction", async (call, next) => {
      rawTransactions.push(String(call.params[0]));
      return next(call);
    });
    const config = loadFacilitatorConfig({
      ...facilitatorEnv(chain),
      RPC_URL: rpc.url,
      DATA_DIR: "memory://",
      LOG_LEVEL: "debug",
      RECEIPT_TIMEOUT_MS: "10000",
      SETTLE_WAIT_MS: "20000",
      BATCH_WINDOW_MS: "1000",
      BATCH_MAX_ITEMS: "64",
      ...settings,
    });
    const logger = createLogger("facilitator", "debug", { write: (line: string) => void lines.push(line) });
    const facilitator = await createFacilitator(config, { logger, backgroundIntervalMs: 100 });
    return { facilitator, lines, rawTransactions };
  }

  /** Verifies 40 payments, then settles them together with `failure` answering the relayer's first send. */
  async function settleFortyAfter(failure: RpcFailure) {
    const rpc = await serveRpcProxy(chain.connection.provider);
    const { facilitator, lines, rawTransactions } = await facilitatorBehind(rpc);
    try {
      const payloads = await Promise.all(Array.from({ length: DEBITS }, () => h.sign()));
      for (const payload of payloads) expect((await h.verify(facilitator.url, payload)).body.isValid).to.equal(true);
      const sentBefore = await chain.publicClient.getTransactionCount({ address: relayer });
      rpc.failNext("eth_sendRawTransaction", failure);
      const settled = await Promise.all(payloads.map((payload) => h.settle(facilitator.url, payload, 1_000n)));
      for (const s of settled) expect(s.status, JSON.stringify(s.body)).to.equal(200);
      for (const payload of payloads) expect(await h.debitsOf(payload.authorization.nonce)).to.have.length(1);
      const transactions = (await chain.publicClient.getTransactionCount({ address: relayer })) - sentBefore;
      return { transactions, lines, rawTransactions, signatures: payloads.map((p) => p.signature) };
    } finally {
      await facilitator.stop();
      await rpc.close();
    }
  }

  function expectNoSecrets(log: string, rawTransactions: string[], signatures: Hex[]) {
    expect(rawTransactions.length).to.be.greaterThan(0);
    for (const raw of rawTransactions)
      expect(log.includes(raw.slice(2, 200)), "a raw transaction in the log").to.equal(false);
    for (const signature of signatures)
      expect(log.toLowerCase().includes(signature.slice(2).toLowerCase()), "a payment signature in the log").to.equal(
        false,
      );
  }

  it("a JSON-RPC rate limit (-32005) on the first send: 40 debits stay in at most 3 transactions, the fault logged by kind and hash", async function () {
    const run = await settleFortyAfter(jsonRpcRateLimit());
    expect(run.transactions, "transactions for 40 debits").to.be.at.most(3);
    const log = run.lines.join("");
    const faults = run.lines.map((line) => JSON.parse(line)).filter((l) => l.kind === "rate_limited");
    expect(faults, "the rate limit is logged").to.have.length.greaterThan(0);
    expect(faults[0].transaction).to.match(/^0x[0-9a-f]{64}$/);
    expectNoSecrets(log, run.rawTransactions, run.signatures);
  });

  it("an HTTP 429 on the first send is resent as the same batch and leaves no raw transaction or signature in the log", async function () {
    const run = await settleFortyAfter(httpRateLimit());
    expect(run.transactions, "transactions for 40 debits").to.be.at.most(3);
    expectNoSecrets(run.lines.join(""), run.rawTransactions, run.signatures);
  });

  it("a send the node took, whose answer came after RPC_TIMEOUT_MS: each debit mined once, a settle answered 503 settles on its retry", async function () {
    const rpc = await serveRpcProxy(chain.connection.provider);
    // Twice RPC_TIMEOUT_MS (5 s, the default: reads as slow as a busy test machine's never time out) is the relayer's
    // wait for an answer; the answer to the first send comes after it.
    const { facilitator } = await facilitatorBehind(rpc, { RPC_TIMEOUT_MS: "5000", SETTLE_WAIT_MS: "60000" });
    let late = 1;
    rpc.intercept("eth_sendRawTransaction", async (call, next) => {
      const hash = await next(call);
      if (late-- > 0) await sleep(12_000);
      return hash;
    });
    try {
      const payloads = await Promise.all(Array.from({ length: 3 }, () => h.sign()));
      for (const payload of payloads) expect((await h.verify(facilitator.url, payload)).body.isValid).to.equal(true);
      const first = await Promise.all(payloads.map((payload) => h.settle(facilitator.url, payload, 1_000n)));
      expect(late, "the first send's answer was late").to.be.at.most(0);
      for (const s of first)
        if (s.status !== 200) expect(s.body.error?.code, JSON.stringify(s.body)).to.equal("settlement_pending");
      // Step 11: the same settle again gets the result once the background pass has found the debit on chain.
      for (const payload of payloads) {
        const settled = await until(async () => {
          const again = await h.settle(facilitator.url, payload, 1_000n);
          return again.status === 200 ? again : undefined;
        }, 60_000);
        expect(settled.body.success).to.equal(true);
        expect(await h.debitsOf(payload.authorization.nonce)).to.have.length(1);
      }
    } finally {
      await facilitator.stop();
      await rpc.close();
    }
  });

  it("a send refused for insufficient funds pauses the relayer, named on /ready, until it is funded; then the debit is sent", async function () {
    const rpc = await serveRpcProxy(chain.connection.provider);
    const { facilitator, lines } = await facilitatorBehind(rpc);
    // Funded when the payment is verified (an unfunded relayer is refused at verify: funding.test.ts), broke after.
    let broke = false;
    rpc.intercept("eth_getBalance", async (call, next) =>
      broke && String(call.params[0]).toLowerCase() === relayer.toLowerCase() ? "0x0" : next(call),
    );
    try {
      const payload = await h.sign();
      expect((await h.verify(facilitator.url, payload)).body.isValid).to.equal(true);
      broke = true;
      rpc.failNext("eth_sendRawTransaction", { code: -32000, message: "insufficient funds for gas * price + value" });
      const settled = await h.settle(facilitator.url, payload, 1_000n);
      expect(settled.status, JSON.stringify(settled.body)).to.not.equal(200);
      const ready = await getJson(`${facilitator.url}/ready`);
      expect(ready.status).to.equal(503);
      expect(ready.body.unfunded).to.deep.equal([relayer]);
      expect(JSON.stringify(ready.body)).not.to.include(devKey(ROLE.relayer).slice(2));
      const sends = rpc.calls("eth_sendRawTransaction");
      await sleep(3_000);
      expect(rpc.calls("eth_sendRawTransaction"), "no send while unfunded").to.equal(sends);
      expect(lines.some((line) => JSON.parse(line).kind === "insufficient_funds")).to.equal(true);

      broke = false;
      await until(
        async () => ((await h.debitsOf(payload.authorization.nonce)).length === 1 ? true : undefined),
        20_000,
      );
      expect((await getJson(`${facilitator.url}/ready`)).status).to.equal(200);
    } finally {
      await facilitator.stop();
      await rpc.close();
    }
  });
});
