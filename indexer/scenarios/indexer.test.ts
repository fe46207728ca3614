import { asc } from "@ponder/client";
import { expect } from "chai";
import pg from "pg";
import type { Address, Hex } from "viem";
import { keccak256, parseEventLogs, toHex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { signEscrowPayment, signExactPayment } from "../../services/buyer/src/sdk/signPayment.ts";
import type { ProjectionsClient } from "../../services/projections/createProjectionsClient.ts";
import {
  createProjectionsClient,
  projections,
  waitForIndexedBlock,
} from "../../services/projections/createProjectionsClient.ts";
import { debitsOfBatch } from "../../services/projections/debitsOfBatch.ts";
import { bitmapNonce } from "../../services/protocol/bitmapNonce.ts";
import { bondNonce } from "../../services/protocol/bondNonce.ts";
import { defined } from "../../services/protocol/defined.ts";
import { resourceIdOf } from "../../services/protocol/resourceId.ts";
import { strikeKeyOf } from "../../services/protocol/strikeKey.ts";
import { bondTypedData, registerResourceTypedData } from "../../services/protocol/typedData.ts";
import type { DebitLoad } from "../../testkit/chain/debitLoad.ts";
import { prepareDebitLoad, sendDebitBatches, signDebits } from "../../testkit/chain/debitLoad.ts";
import { debitsOnChain } from "../../testkit/chain/debitsOnChain.ts";
import type { LocalChain } from "../../testkit/chain/localChain.ts";
import { devKey, ROLE, startLocalChain } from "../../testkit/chain/localChain.ts";
import type { Indexer } from "../../testkit/indexer/startIndexer.ts";
import { startIndexer } from "../../testkit/indexer/startIndexer.ts";
import { until } from "../../testkit/until.ts";

/**
 * Drives a mixed history through the contracts: registrations (plain and registerFor with a bond), escrow debits and
 * an exact payment, strikes up to a slash, bond top-up, deactivation, identity transfer, URI and metadata changes,
 * a withdrawal request and a spend limit. Returns what the projections must then show.
 */
async function driveHistory(chain: LocalChain) {
  const { registry, escrow, identity, token } = chain.contracts;
  const account = (index: number) => chain.wallets[index]!.account;
  const asFacilitator = { account: account(ROLE.facilitator) };
  const asRelayer = { account: account(ROLE.relayer) };
  const creator = account(ROLE.creator);
  const other = account(ROLE.other);
  const buyer = privateKeyToAccount(devKey(ROLE.buyer));
  const now = () => Math.floor(Date.now() / 1000);

  const weather = await chain.registerResource({ slug: "weather", base: 1_000n, perKB: 200n, cap: 50_000n });

  const otherAgentHash = await identity.write.register(["https://agents.example/other.json"], { account: other });
  const [minted] = parseEventLogs({
    abi: identity.abi,
    logs: (await chain.publicClient.waitForTransactionReceipt({ hash: otherAgentHash })).logs,
    eventName: "Registered",
  });
  const otherAgent = minted!.args.agentId;
  await token.write.mint([other.address, 10_000_000n]);
  const deadline = BigInt(now() + 3_600);
  const terms = {
    creator: other.address,
    slug: "translate",
    payout: other.address,
    category: "nlp",
    base: 500n,
    perKB: 0n,
    max: 9_000n,
    deadline,
  };
  const consent = await chain.wallets[ROLE.other]!.signTypedData(
    registerResourceTypedData(terms, chain.addresses.registry),
  );
  const bondAuth = {
    from: other.address,
    value: 4_000_000n,
    validAfter: 0n,
    validBefore: deadline,
    nonce: bondNonce(resourceIdOf(other.address, "translate")),
  };
  const bondSignature = await chain.wallets[ROLE.other]!.signTypedData(
    bondTypedData(bondAuth, chain.addresses.registry, chain.addresses.token),
  );
  const registration = {
    slug: "translate",
    agentId: otherAgent,
    payout: other.address,
    category: "nlp",
    pricing: { base: 500n, perKB: 0n, max: 9_000n },
    cardURI: "https://market.example/translate/card",
    cardHash: keccak256(toHex("card")),
  };
  await registry.write.registerFor(
    [
      other.address,
      registration,
      deadline,
      consent,
      { value: bondAuth.value, validAfter: 0n, validBefore: deadline, nonce: bondAuth.nonce, signature: bondSignature },
    ],
    { account: account(ROLE.publisher) },
  );
  const translate = (await registry.read.resourceIdOf([other.address, "translate"])) as Hex;

  await chain.fundBuyer(ROLE.buyer, 1_000_000n);
  const amounts = [1_200n, 3_400n, 50_000n];
  for (const amount of amounts) {
    const payload = await signEscrowPayment({
      account: buyer,
      escrow: chain.addresses.escrow,
      resourceId: weather,
      maxAmount: 50_000n,
      validBefore: BigInt(now() + 600),
    });
    const a = payload.authorization;
    await escrow.write.debit(
      [
        {
          authorization: {
            buyer: a.buyer,
            resourceId: a.resourceId,
            maxAmount: 50_000n,
            validAfter: 0n,
            validBefore: BigInt(a.validBefore),
            nonce: a.nonce,
          },
          amount,
          signature: payload.signature,
        },
      ],
      asRelayer,
    );
  }
  await token.write.mint([buyer.address, 9_000n]);
  const exact = await signExactPayment({
    account: buyer,
    token: chain.addresses.token,
    escrow: chain.addresses.escrow,
    value: 9_000n,
    validBefore: BigInt(now() + 600),
  });
  const e = exact.authorization;
  await escrow.write.settleExact(
    [
      {
        resourceId: translate,
        from: e.from,
        value: 9_000n,
        validAfter: 0n,
        validBefore: BigInt(e.validBefore),
        nonce: e.nonce,
        signature: exact.signature,
      },
    ],
    asRelayer,
  );

  await token.write.approve([chain.addresses.registry, 1_000_000n], { account: creator });
  await token.write.mint([creator.address, 1_000_000n]);
  await registry.write.postBond([weather, 1_000_000n], { account: creator });
  // Two buyers' calls with the same nonce are two strikes (a nonce is unique only per buyer).
  for (const [label, by] of [
    ["s1", buyer],
    ["s2", other],
    ["s3", buyer],
  ] as const)
    await registry.write.recordStrike(
      [translate, by.address, label === "s3" ? bitmapNonce(1) : bitmapNonce(0), `failed ${label}`],
      asFacilitator,
    );
  await registry.write.recordStrike([weather, buyer.address, keccak256(toHex("w1")), "timeout"], asFacilitator);
  await registry.write.updatePricing([weather, { base: 2_000n, perKB: 100n, max: 60_000n }], { account: creator });
  await registry.write.setPayout([weather, account(ROLE.treasury).address], { account: creator });

  const weatherAgent = (await registry.read.getResource([weather])).agentId;
  await identity.write.setAgentURI([weatherAgent, "https://agents.example/weather-v2.json"], { account: creator });
  await identity.write.setMetadata([weatherAgent, "category", toHex("weather")], { account: creator });
  await identity.write.transferFrom([creator.address, other.address, weatherAgent], { account: creator });

  await escrow.write.requestWithdrawal([100_000n], { account: buyer });
  // A first limit waits a day before it may be applied; a further tightening is pending again.
  await escrow.write.setSpendLimit([500_000n, 86_400n], { account: buyer });
  await chain.connection.provider.request({ method: "evm_increaseTime", params: [86_400] });
  await escrow.write.applySpendLimit([buyer.address]);
  await escrow.write.setSpendLimit([250_000n, 86_400n], { account: buyer });

  return {
    weather,
    translate,
    otherAgent,
    weatherAgent,
    amounts,
    buyer: buyer.address as Address,
    creator: creator.address as Address,
    other: other.address as Address,
  };
}

/** The relayer's batch: one `debitBatchCompact` transaction, one `BatchDebited` log per resource in it. */
const BATCH = 96;
/**
 * Four batches, two before and two after the payout change and strikes: every resource then has two packed logs (of
 * 24 debits from 3 buyers) on each side of them, which is all the checks below tell apart. More debits (this was
 * 1,200) only repeat such logs, which the handler takes one at a time whatever their size; how the indexer keeps up
 * with many is bench:indexer's to measure.
 */
const DEBITS = 4 * BATCH;

/**
 * A load of packed debits (DEBITS over 12 fresh buyers and 4 new resources, in `debitBatchCompact` transactions of
 * BATCH, each several `BatchDebited` logs), with a payout change half-way and strikes against two resources, while the
 * indexer follows live.
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
  describe(`indexer end to end (Ponder on ${backend})`, function () {
    let chain: LocalChain;
    let indexer: Indexer;
    let client: ProjectionsClient;
    let history: Awaited<ReturnType<typeof driveHistory>>;

    before(async function () {
      chain = await startLocalChain();
      indexer = await startIndexer(chain, { postgres: backend === "PostgreSQL" });
      client = createProjectionsClient(indexer.url);
      history = await driveHistory(chain);
      await waitForIndexedBlock(client, await chain.publicClient.getBlockNumber());
    });

    after(async function () {
      await indexer?.stop();
      await chain?.close();
    });

    it("projects every resource exactly as getResource reads it on chain", async function () {
      const rows = await client.db
        .select()
        .from(projections.resource)
        .orderBy(asc(projections.resource.registeredBlock));
      expect(rows.map((r) => r.slug)).to.deep.equal(["weather", "translate"]);
      for (const row of rows) {
        const onChain = await chain.contracts.registry.read.getResource([row.resourceId]);
        expect({
          creator: row.creator,
          payout: row.payout,
          agentId: row.agentId,
          slug: row.slug,
          category: row.category,
          pricing: { base: row.base, perKB: row.perKB, max: row.max },
          cardURI: row.cardUri,
          cardHash: row.cardHash,
          active: row.active,
          bond: row.bond,
          strikes: row.strikes,
        }).to.deep.equal({
          creator: onChain.creator.toLowerCase(),
          payout: onChain.payout.toLowerCase(),
          agentId: onChain.agentId,
          slug: onChain.slug,
          category: onChain.category,
          pricing: { ...onChain.pricing },
          cardURI: onChain.cardURI,
          cardHash: onChain.cardHash,
          active: onChain.active,
          bond: onChain.bond,
          strikes: onChain.strikes,
        });
      }
      const translate = rows.find((r) => r.slug === "translate")!;
      expect(translate.active).to.equal(false);
      expect(translate.strikesTotal).to.equal(3);
      expect(translate.deactivatedAt > 0n).to.equal(true);
      expect(translate.bond).to.equal(2_000_000n);
    });

    it("records one row per BatchDebited log, whose packed debits read back with their split and scheme", async function () {
      const batches = await client.db
        .select()
        .from(projections.debitBatch)
        .orderBy(asc(projections.debitBatch.blockNumber));
      expect(batches).to.have.length(4);
      const rows = batches.flatMap(debitsOfBatch);
      const logs = await debitsOnChain(chain);
      expect(rows).to.have.length(logs.length).and.to.have.length(4);
      for (const [i, log] of logs.entries()) {
        expect(rows[i]).to.include({
          resourceId: log.resourceId,
          buyer: log.buyer,
          nonce: log.nonce,
          amount: log.amount,
          creatorAmount: log.amount - log.treasuryAmount,
          treasuryAmount: log.treasuryAmount,
          transactionHash: log.transactionHash,
        });
        expect(batches[i]).to.include({
          calls: 1,
          gross: log.amount,
          treasury: log.treasuryAmount,
          creator: log.amount - log.treasuryAmount,
          feeBps: log.feeBps,
        });
        // The payout the registry named when the debit was mined (weather's changes later in the history).
        const then = await chain.contracts.registry.read.getResource([log.resourceId], {
          blockNumber: log.blockNumber!,
        });
        expect(rows[i]!.payout).to.equal(then.payout.toLowerCase());
      }
      expect(rows.map((r) => r.scheme)).to.deep.equal(["service-escrow", "service-escrow", "service-escrow", "exact"]);
    });

    it("sums revenue per resource to the on-chain split", async function () {
      const rows = await client.db.select().from(projections.revenue);
      const weather = rows.find((r) => r.resourceId === history.weather)!;
      const gross = history.amounts.reduce((a, b) => a + b, 0n);
      const treasury = history.amounts.reduce((a, b) => a + (b * 500n) / 10_000n, 0n);
      expect(weather).to.include({ calls: 3n, gross, treasury, creator: gross - treasury });
      const translate = rows.find((r) => r.resourceId === history.translate)!;
      expect(translate).to.include({ calls: 1n, gross: 9_000n, treasury: 450n, creator: 8_550n });
    });

    it("records every strike, and bond changes including the slash", async function () {
      const strikes = await client.db.select().from(projections.strike).orderBy(asc(projections.strike.blockNumber));
      expect(strikes.map((s) => [s.resourceId, s.buyer.toLowerCase(), s.idemKey, s.strikes, s.reason])).to.deep.equal([
        [history.translate, history.buyer.toLowerCase(), bitmapNonce(0), 1, "failed s1"],
        [history.translate, history.other.toLowerCase(), bitmapNonce(0), 2, "failed s2"],
        [history.translate, history.buyer.toLowerCase(), bitmapNonce(1), 3, "failed s3"],
        [history.weather, history.buyer.toLowerCase(), keccak256(toHex("w1")), 1, "timeout"],
      ]);
      for (const s of strikes) expect(s.strikeKey).to.equal(strikeKeyOf({ buyer: s.buyer, nonce: s.idemKey }));
      const bonds = await client.db.select().from(projections.bond).orderBy(asc(projections.bond.blockNumber));
      expect(bonds.map((b) => [b.resourceId, b.kind, b.amount, b.bondAfter])).to.deep.equal([
        [history.translate, "posted", 4_000_000n, 4_000_000n],
        [history.weather, "posted", 1_000_000n, 1_000_000n],
        [history.translate, "slashed", 2_000_000n, 2_000_000n],
      ]);
    });

    it("keeps the buyer's escrow balance equal to the chain's, exact payments excluded", async function () {
      const [row] = await client.db.select().from(projections.buyerBalance);
      const onChain = await chain.contracts.escrow.read.balanceOf([history.buyer]);
      expect(row!.buyer).to.equal(history.buyer.toLowerCase());
      expect(row!.balance).to.equal(onChain);
      expect(row!.balance).to.equal(1_000_000n - 1_200n - 3_400n - 50_000n);
      expect(row!.pendingWithdrawal).to.equal(100_000n);
      expect(row!.withdrawalUnlocksAt > 0n).to.equal(true);
      expect([row!.spendLimit, row!.spendPeriod]).to.deep.equal([500_000n, 86_400n]);
      const state = await chain.contracts.escrow.read.buyerState([history.buyer, `0x${"00".repeat(32)}`]);
      expect([row!.pendingSpendLimit, row!.pendingSpendPeriod, row!.pendingSpendLimitAt]).to.deep.equal([
        250_000n,
        86_400n,
        state.pendingEffectiveAt,
      ]);
      expect(state.pendingEffectiveAt > 0n).to.equal(true);
    });

    it("follows ERC-8004 identities: owner after transfer, URI, wallet and metadata", async function () {
      const agents = await client.db.select().from(projections.agent).orderBy(asc(projections.agent.agentId));
      const weather = agents.find((a) => a.agentId === history.weatherAgent)!;
      expect(weather.owner).to.equal(history.other.toLowerCase());
      expect(weather.uri).to.equal("https://agents.example/weather-v2.json");
      expect(weather.wallet).to.equal(null);
      const other = agents.find((a) => a.agentId === history.otherAgent)!;
      expect(other.owner).to.equal(history.other.toLowerCase());
      expect(other.wallet).to.equal(history.other.toLowerCase());
      for (const agent of agents)
        expect(agent.owner).to.equal((await chain.contracts.identity.read.ownerOf([agent.agentId])).toLowerCase());
      const metadata = await client.db.select().from(projections.agentMetadata);
      expect(metadata.map((m) => [m.agentId, m.key, m.value])).to.deep.equal([
        [history.weatherAgent, "category", toHex("weather")],
      ]);
    });

    it("keeps each contract's policy", async function () {
      const rows = await client.db.select().from(projections.policy).orderBy(asc(projections.policy.contract));
      expect(rows.map((r) => [r.contract, r.treasury, r.strikeThreshold, r.slashBps, r.minBond])).to.deep.equal([
        ["escrow", chain.address(ROLE.treasury).toLowerCase(), null, null, null],
        ["registry", chain.address(ROLE.treasury).toLowerCase(), 3, 5_000, 0n],
      ]);
    });

    it("sees a new registration once its block is indexed", async function () {
      await chain.registerResource({ slug: "late", creatorIndex: ROLE.other });
      const block = await chain.publicClient.getBlockNumber();
      await waitForIndexedBlock(client, block, { timeoutMs: 15_000, intervalMs: 20 });
      // Ponder answers /sql from a cache it drops when the indexed block's change notification arrives, which may
      // come just after /status moved: read until the row shows (how fast it shows is bench:indexer's to measure).
      const slugs = await until(
        async () => {
          const rows = await client.db.select().from(projections.resource);
          return rows.some((r) => r.slug === "late") ? rows.map((r) => r.slug) : undefined;
        },
        5_000,
        "the late registration in /sql",
        20,
      );
      expect(slugs).to.include.members(["weather", "translate", "late"]);
    });

    if (backend === "PostgreSQL") {
      it("publishes the tables as views in the readers' schema", async function () {
        const db = new pg.Client({ connectionString: indexer.databaseUrl });
        await db.connect();
        try {
          const { rows } = await db.query(
            `SELECT slug FROM "${indexer.schema}_views".resource ORDER BY registered_block`,
          );
          expect(rows.map((r: { slug: string }) => r.slug)).to.deep.equal(["weather", "translate", "late"]);
        } finally {
          await db.end();
        }
      });
    }

    // Mocha runs a suite's tests before its nested suites: the tests above read the known history alone, and these
    // read it together with the load, on the same chain and Ponder (no second pair to start).
    describe("after a load of packed debits, with a payout change and strikes mid-load", function () {
      let load: DebitLoad;

      before(async function () {
        load = await driveLoad(chain);
        await waitForIndexedBlock(client, await chain.publicClient.getBlockNumber());
      });

      it("keeps one debit_batch row per BatchDebited log, which reads back as the chain's debits", async function () {
        const onChain = await debitsOnChain(chain);
        const loaded = onChain.filter((d) => load.resources.includes(d.resourceId));
        expect(loaded).to.have.length(DEBITS);
        expect(new Set(loaded.map((d) => `${d.transactionHash}-${d.logIndex}`)).size).to.be.below(DEBITS / 10);
        const logs = new Set(onChain.map((d) => `${d.transactionHash}-${d.logIndex}`));
        const batches = await client.db.select().from(projections.debitBatch);
        expect(batches).to.have.length(logs.size);
        const key = (d: { transactionHash: Hex | null; nonce: Hex; buyer: Address }) =>
          `${d.transactionHash}:${d.buyer.toLowerCase()}:${d.nonce}`;
        const indexed = batches.flatMap(debitsOfBatch);
        expect(indexed.map(key).sort()).to.deep.equal(onChain.map(key).sort());
      });

      it("sums each resource's revenue exactly to the chain's debits", async function () {
        const onChain = await debitsOnChain(chain);
        const rows = await client.db.select().from(projections.revenue);
        expect(rows.map((r) => r.resourceId).sort()).to.deep.equal(
          [...new Set(onChain.map((d) => d.resourceId))].sort(),
        );
        expect(rows.map((r) => r.resourceId)).to.include.members(load.resources);
        for (const row of rows) {
          const mine = onChain.filter((d) => d.resourceId === row.resourceId);
          const gross = mine.reduce((sum, d) => sum + d.amount, 0n);
          const treasury = mine.reduce((sum, d) => sum + d.treasuryAmount, 0n);
          expect(row).to.include({ calls: BigInt(mine.length), gross, treasury, creator: gross - treasury });
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
        expect(balances.map((b) => b.buyer).sort()).to.deep.equal(
          [history.buyer, ...load.buyers.map((b) => b.address)].map((a) => a.toLowerCase()).sort(),
        );
        for (const row of balances) expect(row.balance).to.equal(await escrow.read.balanceOf([row.buyer as Address]));
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
            BigInt((await debitsOnChain(chain, { resourceId })).length),
          );
        }
        const loaded = resources.filter((r) => load.resources.includes(r.resourceId));
        expect(loaded.map((r) => r.strikesTotal).sort()).to.deep.equal([0, 0, 1, 2]);
      });
    });
  });
}
