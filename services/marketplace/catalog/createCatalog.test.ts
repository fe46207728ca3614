import { expect } from "chai";
import fc from "fast-check";
import type { Hex } from "viem";
import { keccak256, stringToBytes } from "viem";
import { validCard } from "../../../testkit/protocol/fixtures.ts";
import type { ChainResource } from "./createCatalog.ts";
import { createCatalog } from "./createCatalog.ts";
import { searchTerms } from "./searchTerms.ts";

const id = (n: number) => `0x${n.toString(16).padStart(64, "0")}` as Hex;
const creator = "0x70997970c51812dc3a010c7d01b50e0d17dc79c8" as Hex;

/** The card text last stored for each resource number (`listing`): a chain row names its hash by default. */
const storedTexts = new Map<number, string>();
const hashOf = (text: string) => keccak256(stringToBytes(text));
const defaultText = JSON.stringify(validCard());

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
    cardHash: hashOf(storedTexts.get(n) ?? defaultText),
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
  const cardText = (words: { name?: string; description?: string; tags?: string[] } = {}) => {
    const card = validCard();
    const skill = { ...card.skills[0]!, tags: words.tags ?? card.skills[0]!.tags };
    return JSON.stringify({
      ...card,
      name: words.name ?? card.name,
      description: words.description ?? card.description,
      skills: [skill],
    });
  };
  const listing = (n: number, text = cardText()) => {
    storedTexts.set(n, text);
    return {
      resourceId: id(n),
      resourceUrl: `https://r.example/${n}`,
      cardText: text,
      sampleRequest: {},
      status: "published" as const,
    };
  };
  beforeEach(() => storedTexts.clear());
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

  it("a full resync that reads no revenue of a resource (a reorg took its only debits back) zeroes its settled calls", function () {
    // Before, the settled count stayed, and with it the reputation the settled calls had earned, until a restart.
    const catalog = make();
    for (const n of [1, 2]) {
      catalog.applyListing(listing(n));
      catalog.applyResource(chainRow(n));
      catalog.applySettled(id(n), 8);
    }
    const settled = () => [1, 2].map((n) => catalog.get(id(n))?.settled);
    const reputations = () =>
      (JSON.parse(catalog.query({ limit: 10, offset: 0 }).json) as { reputation: number }[]).map((r) => r.reputation);
    const before = reputations();
    catalog.beginResync();
    for (const n of [1, 2]) catalog.applyResource(chainRow(n));
    catalog.applySettled(id(1), 8);
    catalog.endResync();
    expect(settled()).to.deep.equal([8, 0]);
    expect(reputations()[0]).to.equal(before[0]);
    expect(reputations()[1]).to.be.below(before[1] ?? 0);
  });

  it("lists a resource only while the chain's cardHash is the stored card's: a card updated on chain is not listed", function () {
    // Before, a creator's updateCard (CardUpdated) left the resource listed by GET /resources while its card route
    // refused the stored card (500 card_invalid): docs/protocol.md's "Listed" requires the hashes to agree.
    const catalog = make();
    catalog.applyListing(listing(1));
    catalog.applyResource(chainRow(1));
    expect(catalog.query({ limit: 10, offset: 0 }).total).to.equal(1);
    catalog.applyResource(chainRow(1, { cardHash: `0x${"ee".repeat(32)}` }));
    expect(catalog.query({ limit: 10, offset: 0 }).total).to.equal(0);
    expect(catalog.get(id(1))?.listed).to.equal(false);
    catalog.applyResource(chainRow(1));
    expect(catalog.query({ limit: 10, offset: 0 }).total).to.equal(1);
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

  describe("q: search in the cards", function () {
    const search = (catalog: ReturnType<typeof make>, words: string, more: Record<string, unknown> = {}) => {
      const answer = catalog.query({ q: searchTerms(words), limit: 10, offset: 0, ...more });
      return { total: answer.total, slugs: slugs(answer.json) };
    };
    const publish = (catalog: ReturnType<typeof make>, n: number, text: string, over: Partial<ChainResource> = {}) => {
      catalog.applyListing(listing(n, text));
      catalog.applyResource(chainRow(n, over));
    };

    it("finds only resources whose card holds a term, a name match before a description match", function () {
      const catalog = make();
      publish(catalog, 1, cardText({ name: "Reverse text", description: "Says whether a word is a palindrome." }));
      publish(catalog, 2, cardText({ name: "Word count", description: "Counts the words of a text." }));
      publish(catalog, 3, cardText({ name: "Palindrome check", description: "Checks a text." }));
      expect(search(catalog, "palindrome")).to.deep.equal({ total: 2, slugs: ["r3", "r1"] });
      expect(search(catalog, "currency")).to.deep.equal({ total: 0, slugs: [] });
    });

    it("searches the skills' names, descriptions and tags, folding case, accents and plurals", function () {
      const catalog = make();
      publish(catalog, 1, cardText({ tags: ["Résumé", "hashes"] }));
      publish(catalog, 2, cardText());
      expect(search(catalog, "RESUME").slugs).to.deep.equal(["r1"]);
      expect(search(catalog, "hash").slugs).to.deep.equal(["r1"]);
      expect(search(catalog, "weathers").total).to.equal(2);
    });

    it("ranks a resource matching more of the words first, and breaks ties in registration order", function () {
      const catalog = make();
      publish(catalog, 3, cardText({ name: "Convert units", description: "Length." }));
      publish(catalog, 1, cardText({ name: "Convert units", description: "Length." }));
      publish(catalog, 2, cardText({ name: "Convert currency units", description: "Money." }));
      expect(search(catalog, "convert currency").slugs).to.deep.equal(["r2", "r1", "r3"]);
      expect(search(catalog, "units").slugs).to.deep.equal(["r1", "r3", "r2"]);
    });

    it("combines with every filter and pages the ranked list", function () {
      const catalog = make();
      publish(catalog, 1, cardText({ name: "Palindrome" }), { category: "text" });
      publish(catalog, 2, cardText({ name: "Palindrome finder" }), { category: "text", active: false });
      publish(catalog, 3, cardText({ name: "Palindrome finder tool" }), { category: "tools" });
      expect(search(catalog, "palindrome", { category: "text" }).slugs).to.deep.equal(["r1", "r2"]);
      expect(search(catalog, "palindrome", { category: "text", active: true }).slugs).to.deep.equal(["r1"]);
      expect(search(catalog, "palindrome", { category: "unknown" }).total).to.equal(0);
      const all = search(catalog, "palindrome").slugs;
      const pages = [0, 1, 2].flatMap((offset) => search(catalog, "palindrome", { limit: 1, offset }).slugs);
      expect(pages).to.deep.equal(all);
      expect(search(catalog, "palindrome", { limit: 1, offset: 1 }).total).to.equal(3);
    });

    it("follows a card that changes, and forgets a removed or dropped listing", function () {
      const catalog = make();
      publish(catalog, 1, cardText({ name: "Palindrome" }));
      publish(catalog, 2, cardText({ name: "Palindrome" }));
      catalog.applyListing(listing(1, cardText({ name: "Anagram" })));
      // Listed again once the chain names the new card (its cardHash).
      catalog.applyResource(chainRow(1));
      expect(search(catalog, "palindrome").slugs).to.deep.equal(["r2"]);
      expect(search(catalog, "anagram").slugs).to.deep.equal(["r1"]);
      catalog.applyListing({ ...listing(2, cardText({ name: "Palindrome" })), status: "removed" });
      expect(search(catalog, "palindrome").total).to.equal(0);
      catalog.dropListing(id(1));
      expect(search(catalog, "anagram").total).to.equal(0);
    });

    it("lists a resource whose stored card fails the card schema, but never finds it, and says why", function () {
      const problems: string[] = [];
      const catalog = createCatalog({
        cardUrlOf: (r) => `https://market.example/${r}/.well-known/agent-card.json`,
        uptimeWindow: 100,
        healthWindow: 10,
        onUnsearchable: (_r, problem) => problems.push(problem),
      });
      publish(catalog, 1, JSON.stringify({ ...JSON.parse(cardText({ name: "Palindrome" })), extra: true }));
      publish(catalog, 2, "{not json");
      expect(catalog.query({ limit: 10, offset: 0 }).total).to.equal(2);
      expect(search(catalog, "palindrome").total).to.equal(0);
      expect(problems).to.have.length(2);
      expect(problems[0]).to.contain("fails validation");
      expect(problems[1]).to.contain("not JSON");
    });

    it("answers exactly the filtered records whose card holds a word, in pages of one ranked list", function () {
      const vocabulary = ["alpha", "beta", "gamma", "delta"];
      const change = fc.record({
        n: fc.integer({ min: 1, max: 20 }),
        kind: fc.constantFrom("resource", "listing", "removed", "dropped"),
        category: fc.constantFrom("a", "b"),
        words: fc.array(fc.constantFrom(...vocabulary), { minLength: 1, maxLength: 4 }),
        block: fc.integer({ min: 0, max: 3 }),
      });
      fc.assert(
        fc.property(
          fc.array(change, { maxLength: 60 }),
          fc.array(fc.constantFrom(...vocabulary), { minLength: 1, maxLength: 2 }),
          fc.option(fc.constantFrom("a", "b"), { nil: undefined }),
          fc.integer({ min: 1, max: 4 }),
          (changes, words, category, limit) => {
            const catalog = make();
            const cards = new Map<number, string[]>();
            for (const c of changes) {
              if (c.kind === "resource")
                catalog.applyResource(chainRow(c.n, { category: c.category, registeredBlock: BigInt(c.block) }));
              if (c.kind === "listing") {
                catalog.applyListing(listing(c.n, cardText({ description: c.words.join(" ") })));
                cards.set(c.n, c.words);
              }
              if (c.kind === "removed") {
                catalog.applyListing({
                  ...listing(c.n, cardText({ description: c.words.join(" ") })),
                  status: "removed",
                });
                cards.set(c.n, c.words);
              }
              if (c.kind === "dropped") catalog.dropListing(id(c.n));
            }
            const expected = catalog
              .listed()
              .filter((entry) => category === undefined || entry.record!.category === category)
              .filter((entry) => {
                const n = Number(BigInt(entry.resourceId));
                return cards.get(n)!.some((word) => words.includes(word));
              })
              .map((entry) => entry.record!.slug);
            const q = { q: searchTerms(words.join(" ")), category };
            const full = catalog.query({ ...q, limit: 1000, offset: 0 });
            expect(full.total).to.equal(expected.length);
            expect([...slugs(full.json)].sort()).to.deep.equal([...expected].sort());
            const paged: string[] = [];
            for (let offset = 0; offset < expected.length; offset += limit)
              paged.push(...slugs(catalog.query({ ...q, limit, offset }).json));
            expect(paged).to.deep.equal(slugs(full.json));
          },
        ),
        { numRuns: 200 },
      );
    });
  });
});
