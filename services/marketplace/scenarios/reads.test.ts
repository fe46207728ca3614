import { expect } from "chai";
import type { Hex } from "viem";
import { keccak256, toHex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { devKey, ROLE } from "../../../testkit/chain/localChain.ts";
import type { MarketplaceStack } from "../../../testkit/marketplace/marketplaceStack.ts";
import { startMarketplaceStack } from "../../../testkit/marketplace/marketplaceStack.ts";
import { PUBLISH_TOKEN } from "../../../testkit/marketplace/startMarketplace.ts";
import { signEscrowPayment } from "../../buyer/src/sdk/signPayment.ts";
import { errorBodySchema } from "../../protocol/schemas/errorBody.ts";
import { indexRecordSchema } from "../../protocol/schemas/indexRecord.ts";
import { debitAuthorization } from "../../protocol/typedData.ts";

describe("marketplace: reads (GET /resources, cards, scores, health)", function () {
  let stack: MarketplaceStack;
  const ids: Record<string, Hex> = {};
  const published: Record<string, Awaited<ReturnType<MarketplaceStack["publish"]>>> = {};
  const slugsOf = (body: { slug: string }[]) => body.map((r) => r.slug);

  before(async function () {
    // The listings span the price range down to a free one (delta, base 0), which the price floor would refuse.
    stack = await startMarketplaceStack({ env: { SETTLEMENT_GAS_PER_DEBIT: "0" } });
    const [c0, c1, c2, c3] = stack.creators;
    const plan = [
      { slug: "alpha", creator: c0, category: "tools", base: "1000", max: "50000", bondValue: 2_000_000n },
      {
        slug: "beta",
        creator: c1,
        category: "data",
        base: "5000",
        max: "60000",
        bondValue: 5_000_000n,
        description: "Says whether a text reads the same backwards: a palindrome.",
      },
      {
        slug: "gamma",
        creator: c2,
        category: "data",
        base: "20000",
        max: "50000",
        bondValue: 1_000_000n,
        name: "Palindrome finder",
      },
      { slug: "delta", creator: c3, category: "tools", base: "0", max: "10000", bondValue: 3_000_000n },
    ];
    for (const p of plan) {
      const result = await stack.publish(p);
      expect(result.response.status, JSON.stringify(result.response.body)).to.equal(201);
      published[p.slug] = result;
      ids[p.slug] = result.resourceId;
    }
    const { registry, escrow } = stack.chain.contracts;
    await registry.write.deactivate([ids.delta!], { account: c3!.address });
    const buyer = privateKeyToAccount(devKey(ROLE.buyer));
    for (const label of ["g1", "g2"]) {
      await registry.write.recordStrike([ids.gamma!, buyer.address, keccak256(toHex(label)), "upstream_failed"], {
        account: stack.chain.wallets[ROLE.facilitator]!.account,
      });
    }
    await stack.chain.fundBuyer(ROLE.buyer, 1_000_000n);
    for (let i = 0; i < 2; i++) {
      const payload = await signEscrowPayment({
        account: buyer,
        escrow: stack.chain.addresses.escrow,
        resourceId: ids.beta!,
        maxAmount: 60_000n,
        validBefore: BigInt(Math.floor(Date.now() / 1000) + 600),
      });
      await escrow.write.debit(
        [
          {
            authorization: debitAuthorization(payload.authorization),
            amount: 1_200n,
            signature: payload.signature,
          },
        ],
        { account: stack.chain.wallets[ROLE.relayer]!.account },
      );
    }
    const finalize = (slug: string) => {
      const state = published[slug]!.resource.state;
      state.card = {
        ...state.card,
        identity: { ...(state.card.identity as object), agentId: published[slug]!.response.body.agentId },
      };
    };
    finalize("alpha");
    await stack.marketplace.prober.probeOne(ids.alpha!);
    await stack.marketplace.prober.probeOne(ids.beta!);
    await stack.settle();
  });

  after(async function () {
    await stack?.stop();
  });

  describe("GET /health and GET /ready", function () {
    it("answers health with the service name", async function () {
      expect((await stack.get("/health")).body).to.deep.equal({ ok: true, service: "marketplace" });
    });

    it("is ready once the indexer has caught up with the chain", async function () {
      const { status, body } = await stack.get("/ready");
      expect(status).to.equal(200);
      expect(body).to.deep.equal({ ready: true });
    });
  });

  describe("GET /resources", function () {
    const list = async (query = "") => {
      const { status, body, headers } = await stack.get(`/resources${query}`);
      expect(status, JSON.stringify(body)).to.equal(200);
      return { slugs: slugsOf(body), total: Number(headers.get("x-total-count")), body };
    };

    it("lists every published resource in registration order, each a strict index record", async function () {
      const { slugs, total, body } = await list();
      expect(slugs).to.deep.equal(["alpha", "beta", "gamma", "delta"]);
      expect(total).to.equal(4);
      for (const record of body) expect(indexRecordSchema.parse(record)).to.deep.equal(record);
    });

    it("derives active, bond, reputation, uptime and health from the chain and the probes", async function () {
      const { body } = await list();
      const bySlug = Object.fromEntries(body.map((r: { slug: string }) => [r.slug, r]));
      expect(bySlug.delta.active).to.equal(false);
      expect(bySlug.beta.bond).to.equal("5000000");
      expect(bySlug.gamma.reputation).to.equal(25);
      expect(bySlug.beta.reputation).to.equal(75);
      expect(bySlug.alpha.reputation).to.equal(50);
      expect(bySlug.alpha.uptime).to.equal(100);
      expect(bySlug.alpha.health).to.deep.equal({ verified: true, score: 100 });
      expect(bySlug.beta.uptime).to.equal(50);
      expect(bySlug.beta.health).to.deep.equal({ verified: false, score: 50 });
    });

    it("lets any origin read the index, its total and the price floor it was filtered by, including a refusal", async function () {
      for (const query of ["", "?minBond=x"]) {
        const { headers } = await stack.get(`/resources${query}`);
        expect(headers.get("access-control-allow-origin")).to.equal("*");
        expect(headers.get("access-control-expose-headers")).to.equal("X-Total-Count, X-Price-Floor");
      }
      const head = await fetch(`${stack.marketplace.url}/resources`, { method: "HEAD" });
      expect(head.status).to.equal(200);
      expect(head.headers.get("access-control-allow-origin"), "HEAD, a read too").to.equal("*");
    });

    it("answers a browser's CORS preflight for a read (204, GET and HEAD, the headers it asked), and offers no publish", async function () {
      const preflight = (method: string) =>
        fetch(`${stack.marketplace.url}/resources?q=echo`, {
          method: "OPTIONS",
          headers: {
            origin: "https://agent.example",
            "access-control-request-method": method,
            "access-control-request-headers": "if-none-match, x-trace",
          },
        });
      const read = await preflight("GET");
      expect(read.status).to.equal(204);
      expect(read.headers.get("access-control-allow-origin")).to.equal("*");
      expect(read.headers.get("access-control-allow-methods")).to.equal("GET, HEAD");
      expect(read.headers.get("access-control-allow-headers")).to.equal("if-none-match, x-trace");
      const publish = await preflight("POST");
      expect(publish.headers.get("access-control-allow-methods")?.split(", ")).to.not.include("POST");
    });

    it("answers a method no read route takes with a JSON 405 naming the methods it takes (it was text/plain)", async function () {
      const answer = await fetch(`${stack.marketplace.url}/resources`, { method: "DELETE" });
      expect(answer.status).to.equal(405);
      expect(errorBodySchema.parse(await answer.json()).error.code).to.equal("method_not_allowed");
      expect(answer.headers.get("allow")).to.match(/GET/);
    });

    it("takes the publish token with the Bearer scheme in any case, as RFC 9110 compares it", async function () {
      for (const scheme of ["bearer", "BEARER"]) {
        const answer = await fetch(`${stack.marketplace.url}/resources`, {
          method: "POST",
          headers: { "content-type": "application/json", authorization: `${scheme} ${PUBLISH_TOKEN}` },
          body: "{}",
        });
        expect(answer.status, `${scheme}: past the token to the body's check`).to.equal(400);
      }
      expect((await stack.post("{}", "wrong-token-wrong-token")).status).to.equal(401);
    });

    const cases: [string, string[], number?][] = [
      ["?category=data", ["beta", "gamma"]],
      ["?category=tools", ["alpha", "delta"]],
      ["?category=nothing", []],
      ["?active=true", ["alpha", "beta", "gamma"]],
      ["?active=false", ["delta"]],
      ["?minBond=2000000", ["alpha", "beta", "delta"]],
      ["?minBond=5000000", ["beta"]],
      ["?minBond=5000001", []],
      ["?minBond=0", ["alpha", "beta", "gamma", "delta"]],
      ["?minBond=0002000000", ["alpha", "beta", "delta"]],
      [`?minBond=${"9".repeat(78)}`, []],
      ["?minBasePrice=5000", ["beta", "gamma"]],
      ["?maxBasePrice=5000", ["alpha", "beta", "delta"]],
      ["?maxBasePrice=0", ["delta"]],
      ["?minBasePrice=1000&maxBasePrice=5000", ["alpha", "beta"]],
      ["?minBasePrice=6000&maxBasePrice=5000", []],
      ["?minReputation=60", ["beta"]],
      ["?minReputation=50", ["alpha", "beta", "delta"]],
      ["?minReputation=25.5", ["alpha", "beta", "delta"]],
      ["?minReputation=0", ["alpha", "beta", "gamma", "delta"]],
      ["?minReputation=100", []],
      ["?minUptime=75", ["alpha", "gamma", "delta"]],
      ["?minUptime=50", ["alpha", "beta", "gamma", "delta"]],
      ["?category=tools&active=true", ["alpha"]],
      ["?category=data&minReputation=50&minBond=1", ["beta"]],
      ["?limit=2", ["alpha", "beta"], 4],
      ["?limit=2&offset=2", ["gamma", "delta"], 4],
      ["?offset=3", ["delta"], 4],
      ["?offset=10", [], 4],
      ["?category=data&limit=1&offset=1", ["gamma"], 2],
      ["?q=palindrome", ["gamma", "beta"]],
      ["?q=Palindromes", ["gamma", "beta"]],
      ["?q=palindrome%20finder", ["gamma", "beta"]],
      ["?q=questions", ["alpha", "gamma", "delta"]],
      ["?q=anagram", []],
      ["?q=palindrome&minBond=2000000", ["beta"]],
      ["?q=palindrome&category=tools", []],
      ["?q=questions&active=true&limit=1&offset=1", ["gamma"], 2],
    ];
    for (const [query, expected, total] of cases) {
      it(`filters ${query} to [${expected.join(", ")}]`, async function () {
        const result = await list(query);
        expect(result.slugs).to.deep.equal(expected);
        expect(result.total).to.equal(total ?? expected.length);
      });
    }

    const malformed = [
      "minBond=1.5",
      "minBond=-1",
      "minBond=abc",
      "minBond=",
      "minBond=1e6",
      "minBond=0x10",
      "minBond=%201",
      `minBond=${"1".repeat(79)}`,
      "minBasePrice=+5",
      "minBasePrice=5.0",
      "maxBasePrice=-0",
      "maxBasePrice=ten",
      "active=yes",
      "active=1",
      "active=TRUE",
      "active=",
      "minUptime=abc",
      "minUptime=-1",
      "minUptime=101",
      "minUptime=1e2",
      "minReputation=NaN",
      "minReputation=Infinity",
      "minReputation=100.5",
      "category=",
      "limit=0",
      "limit=1001",
      "limit=abc",
      "offset=-1",
      "offset=1.5",
      "minBond=1&minBond=2",
      "active=true&active=false",
      "q=",
      "q=the",
      `q=${"a".repeat(257)}`,
      "q=a&q=b",
    ];
    for (const query of malformed) {
      it(`answers 400 with an error body for ?${query}`, async function () {
        const { status, body } = await stack.get(`/resources?${query}`);
        expect(status).to.equal(400);
        expect(errorBodySchema.parse(body).error.code).to.equal("invalid_request");
      });
    }

    for (const name of ["slug", "unknown", "search"]) {
      it(`answers 400 naming an unknown parameter (?${name}=), instead of the whole index`, async function () {
        const { status, body } = await stack.get(`/resources?${name}=alpha&category=tools`);
        expect(status).to.equal(400);
        expect(errorBodySchema.parse(body).error.code).to.equal("invalid_request");
        expect(body.error.message).to.contain(`"${name}" is not a parameter of GET /resources`);
      });
    }
  });

  describe("GET /:resourceId/.well-known/agent-card.json", function () {
    it("answers 404 for an unknown resource and for a malformed id", async function () {
      for (const id of [`0x${"12".repeat(32)}`, "0x1234", "weather", `0x${"zz".repeat(32)}`]) {
        const { status, body } = await stack.get(`/${id}/.well-known/agent-card.json`);
        expect(status).to.equal(404);
        expect(errorBodySchema.parse(body).error.code).to.equal("not_found");
      }
    });

    it("accepts the id in any case", async function () {
      expect(
        (await stack.get(`/${ids.alpha!.toUpperCase().replace("0X", "0x")}/.well-known/agent-card.json`)).status,
      ).to.equal(200);
    });

    it("answers 500 card_invalid when the stored card fails validation, and 200 again once it is repaired", async function () {
      const store = stack.marketplace.ctx.store;
      const original = (
        await store.query<{ card_text: string }>("SELECT card_text FROM listing WHERE resource_id = $1", [ids.alpha])
      )[0]!.card_text;
      const corrupted = JSON.stringify({ ...JSON.parse(original), extra: "not allowed" });
      try {
        await store.query("UPDATE listing SET card_text = $2 WHERE resource_id = $1", [ids.alpha, corrupted]);
        const { status, body } = await stack.get(`/${ids.alpha}/.well-known/agent-card.json`);
        expect(status).to.equal(500);
        expect(errorBodySchema.parse(body).error.code).to.equal("card_invalid");
        expect(body.error.message).to.contain("fails validation");
        await store.query("UPDATE listing SET card_text = $2 WHERE resource_id = $1", [ids.alpha, "{not json"]);
        expect((await stack.get(`/${ids.alpha}/.well-known/agent-card.json`)).status).to.equal(500);
      } finally {
        await store.query("UPDATE listing SET card_text = $2 WHERE resource_id = $1", [ids.alpha, original]);
      }
      expect((await stack.get(`/${ids.alpha}/.well-known/agent-card.json`)).status).to.equal(200);
    });

    it("answers 500 when a valid stored card no longer matches the cardHash on chain", async function () {
      const store = stack.marketplace.ctx.store;
      const original = (
        await store.query<{ card_text: string }>("SELECT card_text FROM listing WHERE resource_id = $1", [ids.gamma])
      )[0]!.card_text;
      const reformatted = JSON.stringify(JSON.parse(original), null, 2);
      await store.query("UPDATE listing SET card_text = $2 WHERE resource_id = $1", [ids.gamma, reformatted]);
      const { status, body } = await stack.get(`/${ids.gamma}/.well-known/agent-card.json`);
      expect(status).to.equal(500);
      expect(body.error.message).to.contain("registered on chain");
      await store.query("UPDATE listing SET card_text = $2 WHERE resource_id = $1", [ids.gamma, original]);
    });

    it("unlists a resource once its creator points the chain at another card hash: not in GET /resources, card 404", async function () {
      const creator = stack.creators[1]!;
      await stack.chain.contracts.registry.write.updateCard(
        [ids.beta!, "https://elsewhere.example/card.json", keccak256(toHex("another card"))],
        { account: creator.address },
      );
      await stack.settle();
      // Before, GET /resources kept listing it while its card route refused the stored card (500 card_invalid).
      const { status, body } = await stack.get(`/${ids.beta}/.well-known/agent-card.json`);
      expect(status).to.equal(404);
      expect(body.error.code).to.equal("not_found");
      const listed = await stack.get("/resources");
      expect((listed.body as { resourceId: string }[]).map((r) => r.resourceId)).not.to.include(ids.beta);
    });
  });

  describe("the prober", function () {
    it("records a failing health check: verified false, uptime and health fall", async function () {
      const alpha = published.alpha!.resource;
      alpha.state.healthStatus = 503;
      const result = await stack.marketplace.prober.probeOne(ids.alpha!);
      expect(result.ok).to.equal(false);
      expect(result.error).to.contain("health");
      const record = (await stack.get("/resources?category=tools&active=true")).body[0];
      expect(record.health).to.deep.equal({ verified: false, score: 66.67 });
      expect(record.uptime).to.equal(66.67);
      alpha.state.healthStatus = 200;
      expect((await stack.marketplace.prober.probeOne(ids.alpha!)).ok).to.equal(true);
      const after = (await stack.get("/resources?category=tools&active=true")).body[0];
      expect(after.health).to.deep.equal({ verified: true, score: 75 });
    });

    it("refuses a resource that still serves the agent id placeholder", async function () {
      const result = await stack.marketplace.prober.probeOne(ids.gamma!);
      expect(result.ok).to.equal(false);
      expect(result.error).to.match(/card/);
    });

    it("probes every listed resource in one pass", async function () {
      const before = await stack.marketplace.ctx.store.query<{ n: string }>(
        "SELECT sum(length(history))::text AS n FROM probe",
      );
      await stack.marketplace.prober.probeAll();
      const after = await stack.marketplace.ctx.store.query<{ n: string }>(
        "SELECT sum(length(history))::text AS n FROM probe",
      );
      expect(Number(after[0]!.n) - Number(before[0]!.n)).to.equal(stack.marketplace.ctx.catalog.listed().length);
      expect(stack.marketplace.ctx.catalog.listed().length).to.be.greaterThan(1);
    });
  });

  describe("when the indexer goes away", function () {
    it("answers GET /ready with 503 not_ready, while reads keep answering from the catalog", async function () {
      await stack.indexer.stop();
      const { status, body } = await stack.get("/ready");
      expect(status).to.equal(503);
      expect(errorBodySchema.parse(body).error.code).to.equal("not_ready");
      expect((await stack.get("/resources")).status).to.equal(200);
    });
  });
});
