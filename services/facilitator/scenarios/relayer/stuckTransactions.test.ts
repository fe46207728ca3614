import { expect } from "chai";
import type { Hex } from "viem";
import { isAddressEqual, parseTransaction } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { debitsOnChain } from "../../../../testkit/chain/debitsOnChain.ts";
import type { LocalChain } from "../../../../testkit/chain/localChain.ts";
import { devKey, ROLE, startLocalChain } from "../../../../testkit/chain/localChain.ts";
import type { RpcProxy } from "../../../../testkit/chain/rpcProxy.ts";
import { serveRpcProxy } from "../../../../testkit/chain/rpcProxy.ts";
import { committedHarness } from "../../../../testkit/facilitator/committedHarness.ts";
import { facilitatorEnv, getJson } from "../../../../testkit/facilitator/startFacilitator.ts";
import { until } from "../../../../testkit/until.ts";
import { signEscrowPayment } from "../../../buyer/src/sdk/signPayment.ts";
import { debitAuthorization } from "../../../protocol/typedData.ts";
import { createFacilitator } from "../../createFacilitator.ts";
import { loadFacilitatorConfig } from "../../loadFacilitatorConfig.ts";
import { createLogger } from "../../logger.ts";
import { BATCH_BASE_GAS, itemGas } from "../../relayer/batchGas.ts";
import type { CancelReason } from "../../relayer/createRelayer.ts";
import { createRelayer } from "../../relayer/createRelayer.ts";
import type { DebitItem } from "../../relayer/debitItem.ts";
import { encodeDebitBatch } from "../../relayer/encodeDebitBatch.ts";

const CAP = 50_000n;
const RECEIPT_TIMEOUT_MS = 600;

/**
 * A relayer transaction the chain never mines, through its fee bumps, ends: a cancel (a zero-value transfer from the
 * relayer to itself at the same nonce, paying more) takes the nonce and the batch's debits are sent again, each mined
 * once; a nonce left pending by a crashed run is cleared the same way, so the next batch is not stuck behind it.
 * The chain is the in-process EDR chain with mining off, behind the RPC proxy, which mines a block only once a cancel
 * reaches it (and every transaction after): a chain that takes the relayer's transactions into its pool and never
 * mines them, whatever their fee, until the nonce is cancelled. Before cancels, both runs ended with the debits
 * unsent (ChainUnavailableError) and the nonce still taken.
 */
describe("stuck relayer transactions", function () {
  this.timeout(120_000);
  let chain: LocalChain;
  let rpc: RpcProxy;
  let resourceId: Hex;
  const buyer = privateKeyToAccount(devKey(ROLE.buyer));
  const relayerAccount = privateKeyToAccount(devKey(ROLE.relayer));
  const provider = () => chain.connection.provider;

  before(async function () {
    chain = await startLocalChain();
    resourceId = await chain.registerResource({ slug: "echo", cap: CAP });
    await chain.fundBuyer(ROLE.buyer, CAP * 100n);
    rpc = await serveRpcProxy(chain.connection.provider);
  });

  afterEach(async function () {
    rpc.intercept("eth_sendRawTransaction", undefined);
    await provider().request({ method: "evm_setAutomine", params: [true] });
    // Whatever a failed run left in the pool is mined, so that each test starts from an empty pool.
    await provider().request({ method: "evm_mine", params: [] });
  });

  after(async function () {
    await rpc?.close();
    await chain?.close();
  });

  async function debitItem(amount = 1_000n): Promise<DebitItem> {
    const validBefore = BigInt(Math.floor(Date.now() / 1000) + 600);
    const p = await signEscrowPayment({
      account: buyer,
      escrow: chain.addresses.escrow,
      resourceId,
      maxAmount: CAP,
      validBefore,
    });
    return { authorization: debitAuthorization(p.authorization), amount, signature: p.signature };
  }

  /**
   * Mining off; the proxy keeps every raw transaction it passes on, and mines (then turns mining back on) once a
   * cancel, a transfer from the relayer to itself, reaches it.
   */
  async function minedOnlyOnceCancelled(): Promise<{ raw: Hex[]; cancels: Hex[] }> {
    await provider().request({ method: "evm_setAutomine", params: [false] });
    const raw: Hex[] = [];
    const cancels: Hex[] = [];
    rpc.intercept("eth_sendRawTransaction", async (call, next) => {
      const serialized = call.params[0] as Hex;
      raw.push(serialized);
      const hash = await next(call);
      const { to } = parseTransaction(serialized);
      if (to && isAddressEqual(to, relayerAccount.address)) {
        cancels.push(hash as Hex);
        await provider().request({ method: "evm_mine", params: [] });
        await provider().request({ method: "evm_setAutomine", params: [true] });
      }
      return hash;
    });
    return { raw, cancels };
  }

  /** A relayer on the proxy whose log lines, replacements and cancels are kept. */
  function relayerOnProxy() {
    const lines: string[] = [];
    const logger = createLogger("facilitator", "debug", { write: (line: string) => void lines.push(line) });
    const replacements: Hex[] = [];
    const cancels: { nonce: number; transaction: Hex; reason: CancelReason }[] = [];
    const relayer = createRelayer({
      rpcUrl: rpc.url,
      escrow: chain.addresses.escrow,
      registry: chain.addresses.registry,
      relayerKeys: [devKey(ROLE.relayer)],
      facilitatorKey: devKey(ROLE.facilitator),
      batchWindowMs: 50,
      batchMaxItems: 16,
      receiptTimeoutMs: RECEIPT_TIMEOUT_MS,
      logger,
      onReplacement: (r) => void replacements.push(r.transaction),
      onCancel: (c) => void cancels.push({ nonce: c.nonce, transaction: c.transaction, reason: c.reason }),
    });
    return { relayer, lines, replacements, cancels };
  }

  const minedNonce = () => chain.publicClient.getTransactionCount({ address: relayerAccount.address });
  const debitsOf = (item: DebitItem) => debitsOnChain(chain, { buyer: buyer.address, nonce: item.authorization.nonce });
  const escrowBalance = () => chain.contracts.escrow.read.balanceOf([buyer.address]) as Promise<bigint>;

  /** The log holds no raw transaction (of those sent, or any long `0x02f8…`) and no payment signature. */
  function expectNoSecrets(lines: string[], raw: Hex[], items: DebitItem[]) {
    const log = lines.join("").toLowerCase();
    expect(raw.length).to.be.greaterThan(0);
    for (const tx of raw)
      expect(log.includes(tx.slice(2, 200).toLowerCase()), "a raw transaction in the log").to.equal(false);
    expect(/0x02f8[0-9a-f]{100,}/.test(log), "a signed transaction in the log").to.equal(false);
    for (const item of items)
      expect(log.includes(item.signature.slice(2).toLowerCase()), "a payment signature in the log").to.equal(false);
  }

  /** The cancel's log line: its hash and nonce, and nothing of its bytes. */
  function cancelLine(lines: string[], transaction: Hex): Record<string, unknown> {
    const line = lines.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.transaction === transaction);
    expect(line, "the cancel is logged by its hash").to.not.equal(undefined);
    return line!;
  }

  it("a batch never mined through its fee bumps is cancelled, the nonce freed, and its debits sent again and mined once each", async function () {
    const items = await Promise.all([debitItem(1_000n), debitItem(2_000n), debitItem(3_000n)]);
    const start = await minedNonce();
    const before = await escrowBalance();
    const proxy = await minedOnlyOnceCancelled();
    const { relayer, lines, replacements, cancels } = relayerOnProxy();

    const outcomes = await Promise.all(items.map((item) => relayer.debit(item)));

    for (const outcome of outcomes) expect(outcome.kind).to.equal("debited");
    expect(replacements, "the fee bumps before the cancel").to.have.length(2);
    expect(cancels).to.deep.equal([{ nonce: start, transaction: proxy.cancels[0], reason: "stuck" }]);
    // The cancel took the batch's nonce; the debits went out again at the next one, in one transaction.
    const atStart = await chain.publicClient.getTransaction({ hash: proxy.cancels[0]! });
    expect(atStart.nonce).to.equal(start);
    expect((await chain.publicClient.getTransactionReceipt({ hash: proxy.cancels[0]! })).status).to.equal("success");
    const batches = [...new Set(outcomes.map((o) => (o.kind === "debited" ? o.transaction : "0x")))];
    expect(batches).to.have.length(1);
    expect((await chain.publicClient.getTransaction({ hash: batches[0] as Hex })).nonce).to.equal(start + 1);
    expect(await minedNonce()).to.equal(start + 2);
    for (const item of items) expect(await debitsOf(item), "each debit's nonce used once").to.have.length(1);
    expect(before - (await escrowBalance())).to.equal(6_000n);

    const line = cancelLine(lines, proxy.cancels[0]!);
    expect(line.nonce).to.equal(start);
    expect(line.reason).to.equal("stuck");
    expectNoSecrets(lines, proxy.raw, items);
  });

  it("a nonce left pending by a crashed run is cancelled, and the next batch is mined; the crashed run's debit is not lost", async function () {
    const crashed = await debitItem(4_000n);
    const next = await debitItem(5_000n);
    const start = await minedNonce();
    const before = await escrowBalance();
    await provider().request({ method: "evm_setAutomine", params: [false] });
    // The crashed run's batch, in the pool at the next nonce, that the chain never mines.
    const fees = await chain.publicClient.estimateFeesPerGas();
    const stuck = await relayerAccount.signTransaction({
      type: "eip1559",
      chainId: chain.publicClient.chain!.id,
      to: chain.addresses.escrow,
      data: encodeDebitBatch([crashed]),
      gas: BATCH_BASE_GAS + itemGas(crashed),
      nonce: start,
      ...fees,
    });
    await chain.publicClient.sendRawTransaction({ serializedTransaction: stuck });
    expect(
      await chain.publicClient.getTransactionCount({ address: relayerAccount.address, blockTag: "pending" }),
    ).to.equal(start + 1);
    const proxy = await minedOnlyOnceCancelled();
    const { relayer, lines, cancels } = relayerOnProxy();

    const outcome = await relayer.debit(next);

    expect(outcome.kind).to.equal("debited");
    expect(cancels).to.deep.equal([{ nonce: start, transaction: proxy.cancels[0], reason: "unknown" }]);
    expect((await chain.publicClient.getTransaction({ hash: proxy.cancels[0]! })).nonce).to.equal(start);
    expect(
      outcome.kind === "debited" && (await chain.publicClient.getTransaction({ hash: outcome.transaction })).nonce,
    ).to.equal(start + 1);
    expect(await debitsOf(next)).to.have.length(1);
    expect(await debitsOf(crashed), "the crashed run's batch was cancelled, not mined").to.have.length(0);
    // The crashed run's debit is still the buyer's to pay: sent again (as the retrier does), it is mined once.
    expect((await relayer.debit(crashed)).kind).to.equal("debited");
    expect(await debitsOf(crashed)).to.have.length(1);
    expect(before - (await escrowBalance())).to.equal(9_000n);

    const line = cancelLine(lines, proxy.cancels[0]!);
    expect(line.nonce).to.equal(start);
    expect(line.reason).to.equal("unknown");
    expectNoSecrets(lines, [...proxy.raw, stuck], [crashed, next]);
  });

  it("the facilitator: a settle whose batch is stuck answers once the batch is cancelled and its debit mined at the next nonce; /metrics counts the replacements and the cancel", async function () {
    const h = committedHarness({ chain, buyer, resourceId, cap: CAP });
    const lines: string[] = [];
    const logger = createLogger("facilitator", "debug", { write: (line: string) => void lines.push(line) });
    const config = loadFacilitatorConfig({
      ...facilitatorEnv(chain),
      RPC_URL: rpc.url,
      DATA_DIR: "memory://",
      RECEIPT_TIMEOUT_MS: String(RECEIPT_TIMEOUT_MS),
    });
    const facilitator = await createFacilitator(config, { logger, backgroundIntervalMs: 100 });
    try {
      const payload = await h.sign();
      expect((await h.verify(facilitator.url, payload)).body.isValid).to.equal(true);
      const start = await minedNonce();
      const proxy = await minedOnlyOnceCancelled();
      const settled = await h.settle(facilitator.url, payload, 1_500n);
      expect(settled.status, JSON.stringify(settled.body)).to.equal(200);
      const mined = await chain.publicClient.getTransaction({ hash: settled.body.transaction as Hex });
      expect(mined.nonce, "the debit went out again after the cancel").to.equal(start + 1);
      await h.resultWhen(facilitator.url, payload.authorization.nonce, "confirmed", 30_000);
      expect(await h.debitsOf(payload.authorization.nonce)).to.have.length(1);
      expect(proxy.cancels).to.have.length(1);
      expect((await chain.publicClient.getTransaction({ hash: proxy.cancels[0]! })).nonce).to.equal(start);
      const metrics = await until(async () => {
        const { body } = await getJson(`${facilitator.url}/metrics`);
        return /facilitator_relayer_cancels_total\{reason="stuck"\} 1/.test(body) ? (body as string) : undefined;
      }, 5_000);
      expect(metrics).to.match(/facilitator_relayer_replacements_total 2/);
      expect(metrics).to.not.match(/facilitator_relayer_cancels_total\{reason="unknown"\}/);
      expect(cancelLine(lines, proxy.cancels[0]!).reason).to.equal("stuck");
      const log = lines.join("").toLowerCase();
      for (const tx of proxy.raw) expect(log.includes(tx.slice(2, 200).toLowerCase())).to.equal(false);
      expect(log.includes(payload.signature.slice(2).toLowerCase()), "the payment signature in the log").to.equal(
        false,
      );
    } finally {
      await facilitator.stop();
    }
  });
});
