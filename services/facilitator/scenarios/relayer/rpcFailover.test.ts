import { expect } from "chai";
import type { Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import type { LocalChain } from "../../../../testkit/chain/localChain.ts";
import { devKey, ROLE, startLocalChain } from "../../../../testkit/chain/localChain.ts";
import { serveRpcProxy } from "../../../../testkit/chain/rpcProxy.ts";
import { committedHarness } from "../../../../testkit/facilitator/committedHarness.ts";
import { facilitatorEnv } from "../../../../testkit/facilitator/startFacilitator.ts";
import { endpointLabel } from "../../../http/rpcUrls.ts";
import { createFacilitator } from "../../createFacilitator.ts";
import { FacilitatorConfigError, loadFacilitatorConfig } from "../../loadFacilitatorConfig.ts";

const CAP = 50_000n;

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

  it("settles through the second endpoint while the first is down, counting the first one's failures", async function () {
    const down = await serveRpcProxy(chain.connection.provider);
    const up = await serveRpcProxy(chain.connection.provider);
    await down.stop();
    const facilitator = await createFacilitator(
      loadFacilitatorConfig({
        ...facilitatorEnv(chain),
        RPC_URL: `${down.url}/v2/secret-key,${up.url}`,
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
      expect(up.calls("eth_sendRawTransaction")).to.be.at.least(1);
      const metrics = await (await fetch(`${facilitator.url}/metrics`)).text();
      const failures = [...metrics.matchAll(/^facilitator_rpc_errors_total\{([^}]*)\} (\d+)$/gm)]
        .filter(([, labels]) => labels?.includes(`endpoint="${endpointLabel(down.url)}"`))
        .map(([, labels, count]) => ({ labels, count: Number(count) }));
      expect(failures.length, metrics).to.be.greaterThan(0);
      for (const failure of failures) expect(failure.labels).to.include('kind="transport"');
      expect(metrics).not.to.include("secret-key");
      // The endpoint that answers may count answered errors (a simulation's revert), never a failure to answer.
      expect(metrics).not.to.match(new RegExp(`kind="transport",endpoint="${endpointLabel(up.url)}"`));
    } finally {
      await facilitator.stop();
      await Promise.all([down.close(), up.close()]);
    }
  });
});
