import { expect } from "chai";
import type { Address, Hex } from "viem";
import { keccak256, parseEventLogs, toHex } from "viem";
import type { ProjectionsClient } from "../../services/projections/createProjectionsClient.ts";
import {
  createProjectionsClient,
  projections,
  waitForIndexedBlock,
} from "../../services/projections/createProjectionsClient.ts";
import { debitsOfBatch } from "../../services/projections/debitsOfBatch.ts";
import { defined } from "../../services/protocol/defined.ts";
import type { DebitLoad } from "../../testkit/chain/debitLoad.ts";
import { prepareDebitLoad, sendDebitBatches, signDebits } from "../../testkit/chain/debitLoad.ts";
import { debitsOnChain } from "../../testkit/chain/debitsOnChain.ts";
import type { LocalChain } from "../../testkit/chain/localChain.ts";
import { ROLE, startLocalChain } from "../../testkit/chain/localChain.ts";
import type { Indexer } from "../../testkit/indexer/startIndexer.ts";
import { startIndexer } from "../../testkit/indexer/startIndexer.ts";

const DEBITS = 1_200;
const BATCH = 96;

/**
 * A load of packed debits (DEBITS over 12 buyers and 4 resources, in `debitBatchCompact` transactions of BATCH, each
 * several `BatchDebited` logs), with a payout change half-way and strikes against two resources, while the indexer
 * follows live.
 */
async function driveLoad(chain: LocalChain): Promise<DebitLoad> {
  const load = await prepareDebitLoad(chain, { buyers: 12, resources: 4, debits: DEBITS });
  const debits = await signDebits(load, DEBITS);
  const [first, second] = [load.resources[0]!, load.resources[1]!];
  await sendDebitBatches(load, debits.slice(0, DEBITS / 2), { batch: BATCH });
  const asCreator = { account: chain.wallets[ROLE.creator]!.account };
  await chain.contracts.registry.write.setPayout([first, chain.address(ROLE.other)], asCreator);
  const asFacilitator = { account: chain.wallets[ROLE.facilitator]!.account };
  for (const [resourceId, label] of [
    [first, "a"],
    [first, "b"],
    [second, "c"],
  ] as const)
    await chain.contracts.registry.write.recordStrike(
      [resourceId, load.buyers[0]!.address, keccak256(toHex(label)), "failed"],
      asFacilitator,
    );
  await sendDebitBatches(load, debits.slice(DEBITS / 2), { batch: BATCH });
  return load;
}

for (const backend of ["PGlite", "PostgreSQL"] as const) {
  describe(`revenue and reputation projections after a load of packed debits (Ponder on ${backend})`, function () {
    let chain: LocalChain;
    let indexer: Indexer;
    let client: ProjectionsClient;
    let load: DebitLoad;

    before(async function () {
      chain = await startLocalChain();
      indexer = await startIndexer(chain, { postgres: backend === "PostgreSQL" });
      client = createProjectionsClient(indexer.url);
      load = await driveLoad(chain);
      await waitForIndexedBlock(client, await chain.publicClient.getBlockNumber());
    });

    after(async function () {
      await indexer?.stop();
      await chain?.close();
    });

    it("keeps one debit_batch row per BatchDebited log, which reads back as the chain's debits", async function () {
      const onChain = await debitsOnChain(chain);
      expect(onChain).to.have.length(DEBITS);
      const logs = new Set(onChain.map((d) => `${d.transactionHash}-${d.logIndex}`));
      const batches = await client.db.select().from(projections.debitBatch);
      expect(batches).to.have.length(logs.size);
      expect(logs.size).to.be.below(DEBITS / 10);
      const key = (d: { transactionHash: Hex | null; nonce: Hex; buyer: Address }) =>
        `${d.transactionHash}:${d.buyer.toLowerCase()}:${d.nonce}`;
      const indexed = batches.flatMap(debitsOfBatch);
      expect(indexed.map(key).sort()).to.deep.equal(onChain.map(key).sort());
    });

    it("sums each resource's revenue exactly to the chain's debits", async function () {
      const onChain = await debitsOnChain(chain);
      const rows = await client.db.select().from(projections.revenue);
      expect(rows.map((r) => r.resourceId).sort()).to.deep.equal([...load.resources].sort());
      for (const row of rows) {
        const mine = onChain.filter((d) => d.resourceId === row.resourceId);
        const gross = mine.reduce((sum, d) => sum + d.amount, 0n);
        const treasury = mine.reduce((sum, d) => sum + d.treasuryAmount, 0n);
        expect(row).to.include({ calls: mine.length, gross, treasury, creator: gross - treasury });
        expect(row.lastSettledBlock).to.equal(mine.at(-1)!.blockNumber);
      }
    });

    it("credits the treasury and each payout what the escrow credited them, and leaves each buyer's balance", async function () {
      const batches = await client.db.select().from(projections.debitBatch);
      const byPayout = new Map<string, bigint>();
      for (const b of batches) byPayout.set(b.payout, (byPayout.get(b.payout) ?? 0n) + b.creator);
      expect([...byPayout.keys()].sort()).to.deep.equal(
        [chain.address(ROLE.creator), chain.address(ROLE.other)].map((a) => a.toLowerCase()).sort(),
      );
      const { escrow } = chain.contracts;
      for (const [payout, creator] of byPayout)
        expect(creator).to.equal(await escrow.read.earningsOf([payout as Address]));
      const treasury = batches.reduce((sum, b) => sum + b.treasury, 0n);
      expect(treasury).to.equal(await escrow.read.earningsOf([chain.address(ROLE.treasury)]));
      const balances = await client.db.select().from(projections.buyerBalance);
      expect(balances).to.have.length(load.buyers.length);
      for (const buyer of load.buyers) {
        const row = defined(
          balances.find((b) => b.buyer === buyer.address.toLowerCase()),
          "the buyer's balance",
        );
        expect(row.balance).to.equal(await escrow.read.balanceOf([buyer.address]));
      }
    });

    it("counts each resource's settled calls and strikes as the chain does (the inputs of its reputation)", async function () {
      const revenue = await client.db.select().from(projections.revenue);
      const resources = await client.db.select().from(projections.resource);
      const struck = parseEventLogs({
        abi: chain.contracts.registry.abi,
        eventName: "StrikeRecorded",
        logs: await chain.publicClient.getLogs({ address: chain.addresses.registry, fromBlock: 0n }),
      });
      for (const resourceId of load.resources) {
        const row = defined(
          resources.find((r) => r.resourceId === resourceId),
          "the resource",
        );
        const onChain = await chain.contracts.registry.read.getResource([resourceId]);
        expect(row.strikes).to.equal(onChain.strikes);
        expect(row.strikesTotal).to.equal(struck.filter((s) => s.args.resourceId === resourceId).length);
        expect(revenue.find((r) => r.resourceId === resourceId)?.calls).to.equal(
          (await debitsOnChain(chain, { resourceId })).length,
        );
      }
      expect(resources.map((r) => r.strikesTotal).sort()).to.deep.equal([0, 0, 1, 2]);
    });
  });
}
