import { expect } from "chai";
import fc from "fast-check";
import type { Hex } from "viem";
import type { ChainResource } from "./createCatalog.ts";
import { createCatalog } from "./createCatalog.ts";

const id = (n: number) => `0x${n.toString(16).padStart(64, "0")}` as Hex;
const creator = "0x70997970c51812dc3a010c7d01b50e0d17dc79c8" as Hex;

function chainRow(n: number, over: Partial<ChainResource> = {}): ChainResource {
  return {
    resourceId: id(n),
    creator,
    agentId: BigInt(n),
    slug: `r${n}`,
    category: "tools",
    base: 1_000n,
    perKB: 10n,
    max: 50_000n,
    bond: 1_000_000n,
    active: true,
    cardHash: `0x${"00".repeat(32)}`,
    strikesTotal: 0,
    registeredBlock: BigInt(n),
    ...over,
  };
}

describe("createCatalog", function () {
  const make = () =>
    createCatalog({
      cardUrlOf: (r) => `https://market.example/${r}/.well-known/agent-card.json`,
      uptimeWindow: 100,
      healthWindow: 10,
    });
  const listing = (n: number) => ({
    resourceId: id(n),
    resourceUrl: `https://r.example/${n}`,
    sampleRequest: {},
    status: "published" as const,
  });
  const slugs = (json: string) => (JSON.parse(json) as { slug: string }[]).map((r) => r.slug);

  it("lists a resource only once the chain knows it and the marketplace published it", function () {
    const catalog = make();
    catalog.applyResource(chainRow(1));
    expect(catalog.query({ limit: 10, offset: 0 }).total).to.equal(0);
    catalog.applyListing(listing(2));
    expect(catalog.query({ limit: 10, offset: 0 }).total).to.equal(0);
    catalog.applyListing(listing(1));
    catalog.applyResource(chainRow(2));
    expect(slugs(catalog.query({ limit: 10, offset: 0 }).json)).to.deep.equal(["r1", "r2"]);
    catalog.applyListing({ ...listing(1), status: "removed" });
    expect(slugs(catalog.query({ limit: 10, offset: 0 }).json)).to.deep.equal(["r2"]);
  });

  it("keeps registration order whatever order the rows arrive in", function () {
    const catalog = make();
    for (const n of [5, 3, 9, 1]) {
      catalog.applyListing(listing(n));
      catalog.applyResource(chainRow(n));
    }
    expect(slugs(catalog.query({ limit: 10, offset: 0 }).json)).to.deep.equal(["r1", "r3", "r5", "r9"]);
  });

  it("rebuilds a record when a score input changes", function () {
    const catalog = make();
    catalog.applyListing(listing(1));
    catalog.applyResource(chainRow(1));
    catalog.applySettled(id(1), 8);
    catalog.applyProbes(id(1), [true, false]);
    const [record] = JSON.parse(catalog.query({ limit: 1, offset: 0 }).json);
    expect(record).to.include({ reputation: 90, uptime: 50 });
    expect(record.health).to.deep.equal({ verified: false, score: 50 });
    expect(catalog.query({ minReputation: 91, limit: 10, offset: 0 }).total).to.equal(0);
  });

  it("resolves waitForListed when the record arrives, and false on timeout", async function () {
    const catalog = make();
    const waiting = catalog.waitForListed(id(7), 1_000);
    catalog.applyListing(listing(7));
    catalog.applyResource(chainRow(7));
    expect(await waiting).to.equal(true);
    expect(await catalog.waitForListed(id(8), 20)).to.equal(false);
  });

  it("drops chain facts a full resync no longer sees (a reorg took them back)", function () {
    const catalog = make();
    for (const n of [1, 2]) {
      catalog.applyListing(listing(n));
      catalog.applyResource(chainRow(n));
    }
    catalog.beginResync();
    catalog.applyResource(chainRow(1));
    catalog.endResync();
    expect(slugs(catalog.query({ limit: 10, offset: 0 }).json)).to.deep.equal(["r1"]);
  });

  it("does not list a record that fails the index-record schema", function () {
    const problems: string[] = [];
    const catalog = createCatalog({
      cardUrlOf: () => "not a url",
      uptimeWindow: 100,
      healthWindow: 10,
      onInvalid: (_r, p) => problems.push(p),
    });
    catalog.applyListing(listing(1));
    catalog.applyResource(chainRow(1, { slug: "Upper Case" }));
    expect(catalog.query({ limit: 10, offset: 0 }).total).to.equal(0);
    expect(problems[0]).to.match(/slug/);
  });

  it("compares base units as BigInt beyond 2^53", function () {
    const catalog = make();
    catalog.applyListing(listing(1));
    catalog.applyResource(chainRow(1, { bond: 2n ** 70n }));
    expect(catalog.query({ minBond: 2n ** 70n, limit: 10, offset: 0 }).total).to.equal(1);
    expect(catalog.query({ minBond: 2n ** 70n + 1n, limit: 10, offset: 0 }).total).to.equal(0);
  });

  it("answers every filter exactly as a plain filter over the listed records would, whatever the order of changes", function () {
    const change = fc.record({
      n: fc.integer({ min: 1, max: 30 }),
      kind: fc.constantFrom("resource", "listing", "removed", "settled", "probes"),
      category: fc.constantFrom("a", "b", "c"),
      active: fc.boolean(),
      bond: fc.constantFrom(0n, 5n, 2n ** 60n, 2n ** 60n + 1n),
      base: fc.constantFrom(0n, 100n, 2n ** 55n + 1n),
      block: fc.integer({ min: 0, max: 5 }),
      settled: fc.nat(20),
      history: fc.array(fc.boolean(), { maxLength: 5 }),
    });
    const query = fc.record(
      {
        category: fc.constantFrom("a", "b", "z"),
        active: fc.boolean(),
        minBond: fc.constantFrom(0n, 5n, 2n ** 60n, 2n ** 60n + 1n),
        minBasePrice: fc.constantFrom(0n, 100n, 2n ** 55n + 1n, 2n ** 55n + 2n),
        maxBasePrice: fc.constantFrom(0n, 100n, 2n ** 55n, 2n ** 55n + 1n),
        minReputation: fc.constantFrom(0, 50, 90),
        minUptime: fc.constantFrom(0, 50, 100),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(
        fc.array(change, { maxLength: 80 }),
        query,
        fc.integer({ min: 1, max: 7 }),
        fc.nat(5),
        (changes, q, limit, offset) => {
          const catalog = make();
          for (const c of changes) {
            if (c.kind === "resource")
              catalog.applyResource(
                chainRow(c.n, {
                  category: c.category,
                  active: c.active,
                  bond: c.bond,
                  base: c.base,
                  max: c.base + 1n,
                  registeredBlock: BigInt(c.block),
                }),
              );
            if (c.kind === "listing") catalog.applyListing(listing(c.n));
            if (c.kind === "removed") catalog.applyListing({ ...listing(c.n), status: "removed" });
            if (c.kind === "settled") catalog.applySettled(id(c.n), c.settled);
            if (c.kind === "probes") catalog.applyProbes(id(c.n), c.history);
          }
          const records = catalog.listed().map((entry) => ({ entry, record: entry.record! }));
          const sorted = [...records].sort((x, y) =>
            x.entry.chain!.registeredBlock === y.entry.chain!.registeredBlock
              ? x.entry.resourceId < y.entry.resourceId
                ? -1
                : 1
              : x.entry.chain!.registeredBlock < y.entry.chain!.registeredBlock
                ? -1
                : 1,
          );
          expect(sorted.map((r) => r.entry.resourceId)).to.deep.equal(records.map((r) => r.entry.resourceId));
          const expected = records.filter(
            ({ entry, record }) =>
              (q.category === undefined || record.category === q.category) &&
              (q.active === undefined || record.active === q.active) &&
              (q.minBond === undefined || entry.chain!.bond >= q.minBond) &&
              (q.minBasePrice === undefined || entry.chain!.base >= q.minBasePrice) &&
              (q.maxBasePrice === undefined || entry.chain!.base <= q.maxBasePrice) &&
              (q.minReputation === undefined || record.reputation >= q.minReputation) &&
              (q.minUptime === undefined || record.uptime >= q.minUptime),
          );
          const answer = catalog.query({ ...q, limit, offset });
          expect(answer.total).to.equal(expected.length);
          expect(JSON.parse(answer.json)).to.deep.equal(expected.slice(offset, offset + limit).map((r) => r.record));
        },
      ),
      { numRuns: 300 },
    );
  });
});
