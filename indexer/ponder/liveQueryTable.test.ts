import { readFileSync } from "node:fs";
import { sum } from "@ponder/client";
import { expect } from "chai";
import {
  createProjectionsClient,
  projections,
  waitForIndexedBlock,
} from "../../services/projections/createProjectionsClient.ts";
import { prepareDebitLoad, sendDebitBatches, signDebits } from "../../testkit/chain/debitLoad.ts";
import type { LocalChain } from "../../testkit/chain/localChain.ts";
import { startLocalChain } from "../../testkit/chain/localChain.ts";
import type { Indexer } from "../../testkit/indexer/startIndexer.ts";
import { startIndexer } from "../../testkit/indexer/startIndexer.ts";
import { CREATE_ONCE, createLiveQueryTableOnce, TRUNCATE_AFTER_EVENTS } from "./liveQueryTable.ts";

const runtime = (name: string) =>
  readFileSync(new URL(`../../node_modules/ponder/dist/esm/runtime/${name}.js`, import.meta.url), "utf8");

describe("the live-query table created once per PGlite session, emptied after blocks with events (liveQueryTable.ts)", () => {
  for (const name of ["multichain", "omnichain"])
    it(`patches Ponder 0.16.6's ${name} runtime exactly once, and is idempotent`, () => {
      const patched = createLiveQueryTableOnce(runtime(name));
      expect(patched.split(CREATE_ONCE)).to.have.length(2);
      expect(patched.split(TRUNCATE_AFTER_EVENTS)).to.have.length(2);
      expect(patched.split("TRUNCATE TABLE")).to.have.length(2);
      expect(createLiveQueryTableOnce(patched)).to.equal(patched);
    });

  it("refuses code it was not written for, rather than running Ponder unpatched", () => {
    expect(() => createLiveQueryTableOnce(runtime("isolated"))).to.throw(/not the 0.16 code/);
    expect(() => createLiveQueryTableOnce("export const runMultichain = () => {};")).to.throw(/not the 0.16 code/);
  });

  describe("when blocks with and without events arrive while the indexer is live", () => {
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

    // Ponder's API caches each read until a block's notification names a table it reads: a live-query table emptied
    // at the wrong time (e.g. at each statement's commit) leaves the second read at 16.
    it("invalidates the API's cached reads of each table a block wrote, also after empty blocks", async () => {
      const client = createProjectionsClient(indexer.url);
      const debits = async () =>
        Number(
          (await client.db.select({ n: sum(projections.debitBatch.calls) }).from(projections.debitBatch))[0]?.n ?? 0,
        );
      const load = await prepareDebitLoad(chain, { buyers: 2, resources: 1, debits: 48 });
      const signed = await signDebits(load, 48);
      const seen: number[] = [];
      for (const batch of [signed.slice(0, 16), signed.slice(16, 48)]) {
        await sendDebitBatches(load, batch, { batch: 16 });
        for (let i = 0; i < 3; i++) await chain.connection.provider.request({ method: "evm_mine", params: [] });
        await waitForIndexedBlock(client, await chain.publicClient.getBlockNumber());
        seen.push(await debits());
      }
      expect(seen).to.deep.equal([16, 48]);
    });
  });
});
