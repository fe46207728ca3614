import { readFileSync } from "node:fs";
import { expect } from "chai";
import { createProjectionsClient, waitForIndexedBlock } from "../../services/projections/createProjectionsClient.ts";
import { prepareDebitLoad, sendDebitBatches, signDebits } from "../../testkit/chain/debitLoad.ts";
import type { LocalChain } from "../../testkit/chain/localChain.ts";
import { startLocalChain } from "../../testkit/chain/localChain.ts";
import type { Indexer } from "../../testkit/indexer/startIndexer.ts";
import { startIndexer } from "../../testkit/indexer/startIndexer.ts";
import { FIXED_REALTIME_LOOP, fixRealtimeCache } from "./realtimeCacheFix.ts";

const indexingModule = () =>
  readFileSync(new URL("../../node_modules/ponder/dist/esm/indexing/index.js", import.meta.url), "utf8");

/** A counter of Ponder's Prometheus text, 0 when absent. */
function metric(text: string, series: string): number {
  const line = text.split("\n").find((l) => l.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : 0;
}

describe("Ponder's realtime indexing cache fix", () => {
  it("adds the missing line to the installed Ponder exactly once, and is idempotent", () => {
    const fixed = fixRealtimeCache(indexingModule());
    expect(fixed.split(FIXED_REALTIME_LOOP)).to.have.length(2);
    expect(fixRealtimeCache(fixed)).to.equal(fixed);
  });

  it("refuses code it was not written for, rather than running Ponder unpatched", () => {
    expect(() => fixRealtimeCache("export const createIndexing = () => ({});")).to.throw(/not the 0.16 code/);
  });

  describe("when debits arrive while the indexer is live", () => {
    let chain: LocalChain;
    let indexer: Indexer;

    before(async () => {
      chain = await startLocalChain();
      indexer = await startIndexer(chain);
    });

    after(async () => {
      await indexer?.stop();
      await chain?.close();
    });

    it("prefetches each block's new debit rows instead of looking them up one by one", async () => {
      const load = await prepareDebitLoad(chain, { buyers: 4, resources: 2, debits: 96 });
      await sendDebitBatches(load, await signDebits(load, 96), { batch: 16 });
      const client = createProjectionsClient(indexer.url);
      await waitForIndexedBlock(client, await chain.publicClient.getBlockNumber());
      const metrics = await (await fetch(`${indexer.url}/metrics`)).text();
      const series = (type: string) => `ponder_indexing_cache_requests_total{table="debit",type="${type}"}`;
      expect(metric(metrics, series("hit"))).to.be.greaterThan(48);
      expect(metric(metrics, series("miss"))).to.be.lessThan(48);
    });
  });
});
