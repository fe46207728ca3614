import { expect } from "chai";
import type { Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import type { LocalChain } from "../../../../testkit/chain/localChain.ts";
import { devKey, ROLE, startLocalChain } from "../../../../testkit/chain/localChain.ts";
import type { RpcProxy } from "../../../../testkit/chain/rpcProxy.ts";
import { serveRpcProxy } from "../../../../testkit/chain/rpcProxy.ts";
import type { RequestProvider } from "../../../../testkit/chain/rpcServer.ts";
import { committedHarness } from "../../../../testkit/facilitator/committedHarness.ts";
import { facilitatorEnv } from "../../../../testkit/facilitator/startFacilitator.ts";
import { sleep } from "../../../../testkit/sleep.ts";
import { endpointLabel } from "../../../http/rpcUrls.ts";
import { createChainReader } from "../../chain.ts";
import { createFacilitator } from "../../createFacilitator.ts";
import { FacilitatorConfigError, loadFacilitatorConfig } from "../../loadFacilitatorConfig.ts";
import type { RpcErrorObserver } from "../../observedTransport.ts";

const CAP = 50_000n;

/** The chain's provider answering every call `ms` late: an endpoint that is up, and slow. */
const slowProvider = (upstream: RequestProvider, ms: number): RequestProvider => ({
  request: async (call) => {
    await sleep(ms);
    return upstream.request(call);
  },
});

/** The `facilitator_rpc_errors_total` series of one endpoint: its labels and count. */
async function rpcFailuresOf(facilitatorUrl: string, endpointUrl: string) {
  const metrics = await (await fetch(`${facilitatorUrl}/metrics`)).text();
  const failures = [...metrics.matchAll(/^facilitator_rpc_errors_total\{([^}]*)\} (\d+)$/gm)]
    .filter(([, labels]) => labels?.includes(`endpoint="${endpointLabel(endpointUrl)}"`))
    .map(([, labels, count]) => ({ labels: labels ?? "", count: Number(count) }));
  return { metrics, failures };
}

/**
 * Several RPC endpoints in `RPC_URL`: with the first one down, every read and send goes to the next, and the failures
 * are counted against the endpoint that failed.
 */
describe("facilitator with several RPC endpoints", function () {
  this.timeout(180_000);
  let chain: LocalChain;
  let h: ReturnType<typeof committedHarness>;

  before(async function () {
    chain = await startLocalChain();
    const resourceId: Hex = await chain.registerResource({ slug: "echo", cap: CAP });
    await chain.fundBuyer(ROLE.buyer, CAP * 10n);
    h = committedHarness({ chain, buyer: privateKeyToAccount(devKey(ROLE.buyer)), resourceId, cap: CAP });
  });

  after(async function () {
    await chain?.close();
  });

  it("refuses an RPC_URL list with an entry that is not a URL, naming the setting", function () {
    expect(() => loadFacilitatorConfig({ ...facilitatorEnv(chain), RPC_URL: `${chain.rpcUrl},not a url` }))
      .to.throw(FacilitatorConfigError)
      .with.property("message")
      .that.matches(/RPC_URL: a URL, or several separated by commas/);
  });

  it("refuses an RPC_TIMEOUT_MS under 100 ms or not a whole number, naming the setting", function () {
    for (const value of ["50", "1.5", "soon"])
      expect(() => loadFacilitatorConfig({ ...facilitatorEnv(chain), RPC_TIMEOUT_MS: value }), value)
        .to.throw(FacilitatorConfigError)
        .with.property("message")
        .that.matches(/RPC_TIMEOUT_MS/);
    expect(loadFacilitatorConfig(facilitatorEnv(chain)).RPC_TIMEOUT_MS).to.equal(5_000);
  });

  it("waits RPC_TIMEOUT_MS for an answer: a slow endpoint's read succeeds within it, and past it fails as that endpoint's", async function () {
    const slow = await serveRpcProxy(slowProvider(chain.connection.provider, 1_000));
    const failures: Parameters<RpcErrorObserver>[0][] = [];
    const reader = (rpcTimeoutMs: number) =>
      createChainReader({ rpcUrl: slow.url, ...chain.addresses, rpcTimeoutMs, onRpcError: (e) => failures.push(e) });
    try {
      expect(await reader(5_000).publicClient.getBlockNumber()).to.be.a("bigint");
      expect(failures).to.deep.equal([]);
      const late = await reader(200)
        .publicClient.getBlockNumber()
        .catch((error: unknown) => error);
      expect(late).to.be.instanceOf(Error);
      expect(failures).to.deep.equal([
        { kind: "transport", endpoint: endpointLabel(slow.url), method: "eth_blockNumber" },
      ]);
    } finally {
      await slow.close();
    }
  });

  /**
   * Pays and settles once through a facilitator on `endpoints` (RPC_URL) with `timeoutMs` (RPC_TIMEOUT_MS): the debit is
   * mined, sent through `up`, and every failure counted against `failing` is a failure to answer. Answers the metrics.
   */
  async function settleDespite(p: { endpoints: string; timeoutMs: number; failing: string; up: RpcProxy }) {
    const facilitator = await createFacilitator(
      loadFacilitatorConfig({
        ...facilitatorEnv(chain),
        RPC_URL: p.endpoints,
        RPC_TIMEOUT_MS: String(p.timeoutMs),
        DATA_DIR: "memory://",
        LOG_LEVEL: "silent",
        RECEIPT_TIMEOUT_MS: "10000",
        SETTLE_WAIT_MS: "20000",
        BATCH_WINDOW_MS: "20",
      }),
      { backgroundIntervalMs: 100 },
    );
    try {
      const { payload, settled } = await h.pay(facilitator.url, 1_000n);
      expect(settled.status, JSON.stringify(settled.body)).to.equal(200);
      expect(await h.debitsOf(payload.authorization.nonce)).to.have.length(1);
      expect(p.up.calls("eth_sendRawTransaction")).to.be.at.least(1);
      const { metrics, failures } = await rpcFailuresOf(facilitator.url, p.failing);
      expect(failures.length, metrics).to.be.greaterThan(0);
      for (const failure of failures) expect(failure.labels).to.include('kind="transport"');
      return metrics;
    } finally {
      await facilitator.stop();
    }
  }

  it("gives up on an endpoint slower than RPC_TIMEOUT_MS and settles through the next one", async function () {
    const slow = await serveRpcProxy(slowProvider(chain.connection.provider, 1_500));
    const up = await serveRpcProxy(chain.connection.provider);
    try {
      await settleDespite({ endpoints: `${slow.url},${up.url}`, timeoutMs: 400, failing: slow.url, up });
    } finally {
      await Promise.all([slow.close(), up.close()]);
    }
  });

  it("settles through the second endpoint while the first is down, counting the first one's failures", async function () {
    const down = await serveRpcProxy(chain.connection.provider);
    const up = await serveRpcProxy(chain.connection.provider);
    await down.stop();
    try {
      const metrics = await settleDespite({
        endpoints: `${down.url}/v2/secret-key,${up.url}`,
        // The endpoint that answers is never to fail for want of time, however busy the machine: at the default 5 s,
        // a test process starved of CPU counted a slow answer as its failure.
        timeoutMs: 60_000,
        failing: down.url,
        up,
      });
      expect(metrics).not.to.include("secret-key");
      // The endpoint that answers may count answered errors (a simulation's revert), never a failure to answer.
      expect(metrics).not.to.match(new RegExp(`kind="transport",endpoint="${endpointLabel(up.url)}"`));
    } finally {
      await Promise.all([down.close(), up.close()]);
    }
  });
});
