import { expect } from "chai";
import type { Hex } from "viem";
import { keccak256, stringToBytes, zeroAddress } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { devKey } from "../../../testkit/chain/localChain.ts";
import type { MarketplaceStack } from "../../../testkit/marketplace/marketplaceStack.ts";
import { startMarketplaceStack } from "../../../testkit/marketplace/marketplaceStack.ts";
import { OPERATOR_INDEX, startMarketplace } from "../../../testkit/marketplace/startMarketplace.ts";
import { sleep } from "../../../testkit/sleep.ts";
import { BASE_FEE_FLOOR_WEI, BLOCK_TIME_MS, SETTLEMENT_GAS_PER_DEBIT } from "../../protocol/constants.ts";
import { NEUTRAL_LIVE_FIELDS, withLiveFields } from "../../protocol/liveCardFields.ts";
import { priceFloor } from "../../protocol/priceFloor.ts";
import { cardSchema } from "../../protocol/schemas/card.ts";
import { errorBodySchema } from "../../protocol/schemas/errorBody.ts";
import { indexRecordSchema } from "../../protocol/schemas/indexRecord.ts";

describe("marketplace: POST /resources (the publish pipeline)", function () {
  let stack: MarketplaceStack;

  before(async function () {
    stack = await startMarketplaceStack();
  });

  after(async function () {
    await stack?.stop();
  });

  /** Nothing of a refused publish is visible: no index record, no card, no registration, no bond taken. */
  async function expectNothingListed(resourceId: Hex, creator: `0x${string}`, balanceBefore: bigint) {
    await stack.settle();
    const index = await stack.get("/resources");
    expect(index.body.map((r: { resourceId: string }) => r.resourceId)).to.not.include(resourceId);
    expect((await stack.get(`/${resourceId}/.well-known/agent-card.json`)).status).to.equal(404);
    const [payout, active] = await stack.chain.contracts.registry.read.paymentTarget([resourceId]);
    expect(payout).to.equal(zeroAddress);
    expect(active).to.equal(false);
    expect(await stack.chain.contracts.token.read.balanceOf([creator])).to.equal(balanceBefore);
  }

  const balanceOf = (address: `0x${string}`) => stack.chain.contracts.token.read.balanceOf([address]);

  describe("when every stage passes", function () {
    let published: Awaited<ReturnType<MarketplaceStack["publish"]>>;

    before(async function () {
      published = await stack.publish({ slug: "echo", category: "tools" });
    });

    it("answers 201 with the resource, its agent, its card URL and each stage timed, in order", function () {
      const { status, body } = published.response;
      expect(status, JSON.stringify(body)).to.equal(201);
      expect(body.resourceId).to.equal(published.resourceId);
      expect(body.agentId).to.match(/^[0-9]+$/);
      expect(body.cardUrl).to.equal(`${stack.marketplace.url}/${published.resourceId}/.well-known/agent-card.json`);
      expect(body.stages.map((s: { stage: string }) => s.stage)).to.deep.equal([
        "moderation",
        "price",
        "bond",
        "probe",
        "mint",
        "index",
      ]);
      for (const s of body.stages) {
        expect(s.ok).to.equal(true);
        expect(s.ms).to.be.a("number").and.to.be.at.least(0);
      }
    });

    it("registers the resource on chain with the creator's bond, the creator's identity and the card's hash", async function () {
      const { registry, identity } = stack.chain.contracts;
      const onChain = await registry.read.getResource([published.resourceId]);
      expect(onChain.creator).to.equal(published.creator.address);
      expect(onChain.bond).to.equal(2_000_000n);
      expect(onChain.agentId.toString()).to.equal(published.response.body.agentId);
      expect(await identity.read.ownerOf([onChain.agentId])).to.equal(published.creator.address);
      expect(await identity.read.tokenURI([onChain.agentId])).to.equal(
        `${stack.marketplace.url}/agents/${published.resourceId}/registration.json`,
      );
      const card = await stack.get(`/${published.resourceId}/.well-known/agent-card.json`);
      // The hash covers the card with the neutral live fields (health, bond); the served card carries live ones.
      const hashed = JSON.stringify(withLiveFields(JSON.parse(card.text), NEUTRAL_LIVE_FIELDS));
      expect(onChain.cardHash).to.equal(keccak256(stringToBytes(hashed)));
      expect(JSON.parse(card.text).bond).to.deep.equal({ posted: onChain.bond.toString() });
      expect(onChain.cardURI).to.equal(published.response.body.cardUrl);
    });

    it("took the bond from the creator, never from the operator", async function () {
      const operator = privateKeyToAccount(devKey(OPERATOR_INDEX)).address;
      expect(await balanceOf(operator)).to.equal(0n);
      expect((await balanceOf(stack.chain.addresses.registry)) >= 2_000_000n).to.equal(true);
    });

    it("lists it in GET /resources as a strict index record", async function () {
      const { status, body, headers } = await stack.get("/resources");
      expect(status).to.equal(200);
      const record = body.find((r: { resourceId: string }) => r.resourceId === published.resourceId);
      expect(indexRecordSchema.parse(record)).to.deep.equal(record);
      expect(record).to.deep.equal({
        resourceId: published.resourceId,
        creator: published.creator.address,
        agentId: published.response.body.agentId,
        slug: "echo",
        category: "tools",
        pricing: { model: "metered", base: "1000", perKB: "200", max: "50000" },
        reputation: 50,
        uptime: 100,
        health: { verified: true, score: 100 },
        bond: "2000000",
        cardUrl: published.response.body.cardUrl,
        active: true,
      });
      expect(headers.get("x-total-count")).to.equal(String(body.length));
    });

    it("serves the finalized card: the served card with the minted agent id", async function () {
      const { status, body, headers } = await stack.get(`/${published.resourceId}/.well-known/agent-card.json`);
      expect(status).to.equal(200);
      expect(headers.get("content-type")).to.match(/application\/json/);
      const card = cardSchema.parse(body);
      expect(card.identity.agentId).to.equal(published.response.body.agentId);
      expect(card.x402.payTo).to.equal(published.resourceId);
      expect(card.url).to.equal(`${published.resource.url}/call`);
    });

    it("serves the ERC-8004 registration file the identity points at", async function () {
      const { status, body } = await stack.get(`/agents/${published.resourceId}/registration.json`);
      expect(status).to.equal(200);
      expect(body).to.deep.equal({
        type: "https://eips.ethereum.org/EIPS/eip-8004#registration-v1",
        name: "Resource echo",
        description: "Answers echo questions.",
        services: [{ name: "A2A", endpoint: published.response.body.cardUrl, version: "0.3.0" }],
        x402Support: true,
        active: true,
        registrations: [
          {
            agentId: Number(published.response.body.agentId),
            agentRegistry: `eip155:5042002:${stack.chain.addresses.identity}`,
          },
        ],
      });
    });

    it("refuses to publish the same resource twice (bond stage: already registered)", async function () {
      const again = await stack.prepare({ slug: "echo" });
      const { status, body } = await stack.post(again.request);
      expect(status).to.equal(422);
      expect(body.error.code).to.equal("bond_failed");
      expect(body.error.message).to.contain("already registered");
    });
  });

  describe("the price floor: no listing below cost", function () {
    type Floor = {
      minimumBase: string;
      baseFeeWei: string;
      gasPerDebit: number;
      feeBps: number;
      marginBps: number;
      costPerCallUnits: string;
      treasuryNeededUnits: string;
    };

    /** Sets the base fee of the next block and mines it, so the latest block carries `wei`. */
    async function baseFee(wei: bigint): Promise<void> {
      await stack.chain.setBaseFee(wei);
      // GET /pricing/floor answers a reading up to a block old (sharedPriceFloor).
      await sleep(BLOCK_TIME_MS);
    }

    let original: bigint;
    before(async function () {
      original = (await stack.chain.publicClient.getBlock()).baseFeePerGas!;
    });
    // The later tests list at the test prices, which are below the floor at 20 gwei.
    after(async function () {
      await baseFee(original);
    });

    async function floor(): Promise<Floor> {
      const { status, body } = await stack.get("/pricing/floor");
      expect(status, JSON.stringify(body)).to.equal(200);
      return body;
    }

    it("GET /pricing/floor answers the minimum base and every number it comes from, at the chain's base fee", async function () {
      await baseFee(BASE_FEE_FLOOR_WEI);
      const answer = await floor();
      const expected = priceFloor({
        gasPerDebit: SETTLEMENT_GAS_PER_DEBIT,
        baseFeeWei: BASE_FEE_FLOOR_WEI,
        feeBps: await stack.chain.contracts.escrow.read.feeBps(),
        marginBps: 2_000,
      });
      expect(answer).to.deep.equal({
        minimumBase: expected.minimumBase.toString(),
        baseFeeWei: BASE_FEE_FLOOR_WEI.toString(),
        gasPerDebit: SETTLEMENT_GAS_PER_DEBIT,
        feeBps: 500,
        marginBps: 2_000,
        costPerCallUnits: expected.costPerCallUnits.toString(),
        treasuryNeededUnits: expected.treasuryNeededUnits.toString(),
      });
      expect(answer.minimumBase).to.equal("7680");
    });

    it("GET /pricing/floor refuses query parameters with 400 invalid_request naming them", async function () {
      const { status, body } = await stack.get("/pricing/floor?base=1");
      expect(status).to.equal(400);
      expect(errorBodySchema.parse(body).error.code).to.equal("invalid_request");
      expect(body.error.message).to.contain('"base"');
    });

    it("publishing a base one unit below the floor is refused with price_failed and the numbers, and nothing is listed", async function () {
      await baseFee(BASE_FEE_FLOOR_WEI);
      const minimum = BigInt((await floor()).minimumBase);
      const prepared = await stack.prepare({ slug: "below-cost", base: String(minimum - 1n) });
      const before = await balanceOf(prepared.creator.address);
      const { status, body } = await stack.post(prepared.request);
      expect(status, JSON.stringify(body)).to.equal(422);
      expect(errorBodySchema.parse(body).error.code).to.equal("price_failed");
      const message: string = body.error.message;
      expect(message).to.contain(`base ${minimum - 1n} is below the minimum base ${minimum}`);
      expect(message).to.contain("at a base fee of 20 gwei");
      expect(message).to.contain(`(${SETTLEMENT_GAS_PER_DEBIT} gas) costs 320 base units (0.00032 USDC) per call`);
      expect(message).to.contain("384 (0.000384 USDC) with the operator's 20% margin");
      expect(message).to.contain(`earns the treasury 383 per call, less than 384`);
      await expectNothingListed(prepared.resourceId, prepared.creator.address, before);
    });

    it("a max below the floor is refused too, even with the base at the floor", async function () {
      await baseFee(BASE_FEE_FLOOR_WEI);
      const minimum = BigInt((await floor()).minimumBase);
      const prepared = await stack.prepare({
        slug: "cap-below-cost",
        base: String(minimum),
        max: String(minimum - 1n),
      });
      const { status, body } = await stack.post(prepared.request);
      expect(status, JSON.stringify(body)).to.equal(422);
      expect(body.error.code).to.equal("price_failed");
      expect(body.error.message).to.contain(`max ${minimum - 1n} is below the minimum base ${minimum}`);
    });

    it("a base exactly at the floor is listed", async function () {
      await baseFee(BASE_FEE_FLOOR_WEI);
      const minimum = (await floor()).minimumBase;
      const published = await stack.publish({ slug: "at-cost", base: minimum });
      expect(published.response.status, JSON.stringify(published.response.body)).to.equal(201);
      const onChain = await stack.chain.contracts.registry.read.getResource([published.resourceId]);
      expect(onChain.pricing.base.toString()).to.equal(minimum);
    });

    it("GET /resources?payable re-checks listed prices at the fee of the moment: a listing at the 20 gwei floor drops out at 40 gwei", async function () {
      await baseFee(BASE_FEE_FLOOR_WEI);
      const minimum = BigInt((await floor()).minimumBase);
      const published = await stack.publish({ slug: "fee-doubles", base: String(minimum) });
      expect(published.response.status, JSON.stringify(published.response.body)).to.equal(201);
      await stack.settle();
      type Row = { resourceId: string; pricing: { base: string } };
      const listing = async (query: string) => {
        const answer = await stack.get(`/resources${query}`);
        expect(answer.status, answer.text).to.equal(200);
        const rows = answer.body as Row[];
        expect(Number(answer.headers.get("x-total-count"))).to.equal(rows.length);
        return { rows, ids: rows.map((row) => row.resourceId), floor: answer.headers.get("x-price-floor") };
      };
      const all = await listing("");
      expect(all.floor, "no floor read without payable").to.equal(null);

      // Publishing mined blocks since, and this chain's base fee falls below 20 gwei when they are empty.
      await baseFee(BASE_FEE_FLOOR_WEI);
      const payableAt20 = await listing("?payable=true");
      expect(payableAt20.floor).to.equal(minimum.toString());
      expect(payableAt20.ids).to.include(published.resourceId);
      for (const row of payableAt20.rows) expect(BigInt(row.pricing.base) >= minimum, row.resourceId).to.equal(true);

      await baseFee(2n * BASE_FEE_FLOOR_WEI);
      const payableAt40 = await listing("?payable=true");
      expect(payableAt40.floor).to.equal((2n * minimum).toString());
      expect(payableAt40.ids, "verify would refuse it now").not.to.include(published.resourceId);
      const refused = await listing("?payable=false");
      expect(refused.floor).to.equal((2n * minimum).toString());
      expect(refused.ids).to.include(published.resourceId);
      for (const row of refused.rows) expect(BigInt(row.pricing.base) < 2n * minimum, row.resourceId).to.equal(true);
      expect([...payableAt40.ids, ...refused.ids].sort()).to.deep.equal([...all.ids].sort());
    });

    it("GET /resources?payable answers 503 chain_unavailable, not a 500, when the floor cannot be read", async function () {
      const cut = await startMarketplace(stack.chain, stack.indexer, { env: { RPC_URL: "http://127.0.0.1:9" } });
      try {
        const payable = await fetch(`${cut.url}/resources?payable=true`);
        expect(payable.status).to.equal(503);
        expect(errorBodySchema.parse(await payable.json()).error.code).to.equal("chain_unavailable");
        expect((await fetch(`${cut.url}/resources`)).status, "discovery without payable reads no chain").to.equal(200);
      } finally {
        await cut.stop();
      }
    });

    it("a quote whose multiplier charges a successful call below the floor is refused at the probe, though base and max pass", async function () {
      await baseFee(BASE_FEE_FLOOR_WEI);
      const minimum = BigInt((await floor()).minimumBase);
      const prepared = await stack.prepare({
        slug: "discounted-below-cost",
        base: String(minimum),
        tamper: (state) => {
          state.quote.computeMultiplier = 0.5;
        },
      });
      const { status, body } = await stack.post(prepared.request);
      expect(status, JSON.stringify(body)).to.equal(422);
      expect(body.error.code).to.equal("probe_failed");
      expect(body.error.message).to.contain(
        `computeMultiplier 0.5 charges a successful call as little as ${minimum / 2n}, below the price floor ${minimum}`,
      );
    });

    it("a higher base fee raises the floor: a price that passed at 20 gwei is refused at 40 gwei", async function () {
      await baseFee(BASE_FEE_FLOOR_WEI);
      const low = BigInt((await floor()).minimumBase);
      await baseFee(2n * BASE_FEE_FLOOR_WEI);
      const high = await floor();
      expect(high.baseFeeWei).to.equal((2n * BASE_FEE_FLOOR_WEI).toString());
      expect(BigInt(high.minimumBase)).to.equal(2n * low);
      const prepared = await stack.prepare({ slug: "cost-rose", base: String(low) });
      const { status, body } = await stack.post(prepared.request);
      expect(status, JSON.stringify(body)).to.equal(422);
      expect(body.error.code).to.equal("price_failed");
      expect(body.error.message).to.contain(`base ${low} is below the minimum base ${high.minimumBase}`);
      expect(body.error.message).to.contain("at a base fee of 40 gwei");
    });
  });

  describe("authorization (fail-closed)", function () {
    it("answers 401 without a bearer token, and lists nothing", async function () {
      const { request, resourceId, creator } = await stack.prepare({ slug: "no-token" });
      const before = await balanceOf(creator.address);
      const { status, body } = await stack.post(request, null);
      expect(status).to.equal(401);
      expect(errorBodySchema.parse(body).error.code).to.equal("unauthorized");
      await expectNothingListed(resourceId, creator.address, before);
    });

    it("answers 401 for a wrong bearer token", async function () {
      const { request } = await stack.prepare({ slug: "wrong-token" });
      const { status, body } = await stack.post(request, "not-the-publish-token-at-all");
      expect(status).to.equal(401);
      expect(body.error.code).to.equal("unauthorized");
    });

    it("answers 401 before reading the body, so a malformed body without a token is still 401", async function () {
      expect((await stack.post("{not json", null)).status).to.equal(401);
    });

    it("refuses every publish when no token is configured, whatever token is sent", async function () {
      const closed = await startMarketplace(stack.chain, stack.indexer, { env: { PUBLISH_TOKEN: undefined } });
      try {
        const { request } = await stack.prepare({ slug: "closed" });
        for (const authorization of [undefined, "Bearer ", "Bearer anything-at-all-1234567890"]) {
          const response = await fetch(`${closed.url}/resources`, {
            method: "POST",
            headers: { "content-type": "application/json", ...(authorization ? { authorization } : {}) },
            body: JSON.stringify(request),
          });
          expect(response.status).to.equal(401);
          expect(((await response.json()) as any).error.message).to.contain("no publish token is configured");
        }
      } finally {
        await closed.stop();
      }
    });
  });

  describe("a malformed request", function () {
    it("answers 400 invalid_request for a body that is not JSON or misses fields", async function () {
      for (const body of ["{not json", "{}", JSON.stringify({ slug: "x" })]) {
        const { status, body: answer } = await stack.post(body);
        expect(status).to.equal(400);
        expect(errorBodySchema.parse(answer).error.code).to.equal("invalid_request");
      }
    });

    it("names what is wrong with a body that is not JSON: its content type (415) or its text (400)", async function () {
      const prepared = await stack.prepare({ slug: "plain-text" });
      const plain = await stack.post(JSON.stringify(prepared.request), undefined, "text/plain");
      expect(plain.status).to.equal(415);
      expect(plain.body.error).to.deep.equal({
        code: "unsupported_media_type",
        message: "a request body is JSON (content-type application/json)",
      });
      const broken = await stack.post("{not json");
      expect(broken.body.error.message).to.match(/^a request body is not JSON: /);
    });

    it("answers 400, not 500, to a price that is not a number (its uint128 check threw on it)", async function () {
      const prepared = await stack.prepare({ slug: "malformed-price" });
      for (const base of ["abc", "1.5", "1e3"]) {
        const request = { ...prepared.request, pricing: { ...prepared.request.pricing, base } };
        const { status, body } = await stack.post(request);
        expect(status, JSON.stringify(body)).to.equal(400);
        expect(errorBodySchema.parse(body).error.message).to.match(/pricing\.base/);
      }
    });
  });

  describe("each stage refusing in turn, with nothing listed after it", function () {
    async function refused(prepared: Awaited<ReturnType<MarketplaceStack["prepare"]>>, code: string, message: RegExp) {
      const before = await balanceOf(prepared.creator.address);
      const { status, body } = await stack.post(prepared.request);
      expect(status, JSON.stringify(body)).to.equal(422);
      expect(errorBodySchema.parse(body).error.code).to.equal(code);
      expect(body.error.message).to.match(message);
      await expectNothingListed(prepared.resourceId, prepared.creator.address, before);
    }

    it("moderation: a blocked term in the description", async function () {
      await refused(
        await stack.prepare({ slug: "bad-words", description: "Builds ransomware on demand." }),
        "moderation_failed",
        /blocked term "ransomware"/,
      );
    });

    it("moderation: a category that is not lowercase words", async function () {
      await refused(
        await stack.prepare({ slug: "bad-category", category: "Tools & More" }),
        "moderation_failed",
        /category/,
      );
    });

    it("bond: no bond authorization", async function () {
      await refused(await stack.prepare({ slug: "no-bond", bondValue: null }), "bond_failed", /no bond authorization/);
    });

    it("bond: a bond below the least bond", async function () {
      await refused(
        await stack.prepare({ slug: "small-bond", bondValue: 999_999n }),
        "bond_failed",
        /below the least bond 1000000/,
      );
    });

    it("bond: a bond authorization signed by someone other than the creator", async function () {
      const prepared = await stack.prepare({ slug: "forged-bond" });
      const other = await stack.prepare({ slug: "forged-bond", creator: stack.creators[1] });
      const request = {
        ...prepared.request,
        bond: {
          ...(prepared.request as any).bond,
          signature: (other.request as any).bond.signature,
        },
      };
      await refused({ ...prepared, request }, "bond_failed", /not signed by the creator/);
    });

    it("bond: the creator's bond authorization for another of the creator's resources", async function () {
      const prepared = await stack.prepare({ slug: "bond-here" });
      const elsewhere = await stack.prepare({ slug: "bond-elsewhere" });
      const request = { ...prepared.request, bond: (elsewhere.request as any).bond };
      await refused(
        { ...prepared, request },
        "bond_failed",
        /nonce must begin with the first 16 bytes of the resource id/,
      );
    });

    it("bond: a registration consent for other terms (the payout changed after signing)", async function () {
      const prepared = await stack.prepare({ slug: "changed-payout" });
      const request = { ...prepared.request, payout: stack.creators[2]!.address };
      await refused({ ...prepared, request }, "bond_failed", /registration is not signed by the creator/);
    });

    it("probe: the card's payTo is not the resource id", async function () {
      const prepared = await stack.prepare({
        slug: "card-payto",
        tamper: (state) => {
          state.card = { ...state.card, x402: { ...(state.card.x402 as object), payTo: `0x${"ab".repeat(32)}` } };
        },
      });
      await refused(prepared, "probe_failed", /card x402\.payTo 0xabab.* differs from the resource id/);
    });

    it("probe: the quote's payTo is not the resource id", async function () {
      const prepared = await stack.prepare({
        slug: "quote-payto",
        tamper: (state) => {
          state.quote.payTo = `0x${"cd".repeat(32)}`;
        },
      });
      await refused(prepared, "probe_failed", /quote payTo 0xcdcd.* differs from the resource id/);
    });

    it("probe: the quote's cap is not the card's max", async function () {
      const prepared = await stack.prepare({
        slug: "quote-cap",
        tamper: (state) => {
          state.quote.cap = "40000";
        },
      });
      await refused(prepared, "probe_failed", /quote cap 40000 differs from the card's max 50000/);
    });

    it("probe: the quote names another escrow", async function () {
      const prepared = await stack.prepare({
        slug: "quote-escrow",
        tamper: (state) => {
          state.quote.escrow = stack.chain.addresses.token;
        },
      });
      await refused(prepared, "probe_failed", /quote escrow .* is not our escrow/);
    });

    it("probe: the card names another stablecoin", async function () {
      const prepared = await stack.prepare({
        slug: "card-asset",
        tamper: (state) => {
          state.card = { ...state.card, x402: { ...(state.card.x402 as object), asset: stack.chain.addresses.escrow } };
        },
      });
      await refused(prepared, "probe_failed", /card x402\.asset .* is not our stablecoin/);
    });

    it("probe: the resource is unreachable", async function () {
      const prepared = await stack.prepare({ slug: "gone" });
      await prepared.resource.stop();
      await refused(prepared, "probe_failed", /unreachable/);
    });

    it("probe: the resource does not quote (POST /call answers 400)", async function () {
      const prepared = await stack.prepare({
        slug: "no-quote",
        tamper: (state) => {
          state.callStatus = 400;
        },
      });
      await refused(prepared, "probe_failed", /answered 400, not 402/);
    });

    it("probe: the served card differs from the submitted one", async function () {
      const prepared = await stack.prepare({
        slug: "other-card",
        tamper: (state) => {
          state.card = { ...state.card, name: "Something else" };
        },
      });
      await refused(prepared, "probe_failed", /differs from the card submitted/);
    });

    it("index: the creator's funds are gone by the time the registration is sent; a retry reuses the minted identity", async function () {
      const creator = stack.creators[3]!;
      const prepared = await stack.prepare({ slug: "drained", creator });
      const balance = await balanceOf(creator.address);
      const operator = privateKeyToAccount(devKey(OPERATOR_INDEX)).address;
      const holder = stack.creators[0]!.address;
      let drained = false;
      const original = stack.marketplace.ctx.chain.transferIdentity;
      stack.marketplace.ctx.chain.transferIdentity = async (agentId, to) => {
        const receipt = await original(agentId, to);
        if (!drained) {
          drained = true;
          await stack.chain.contracts.token.write.transfer([holder, balance], { account: creator.address });
        }
        return receipt;
      };
      try {
        const { status, body } = await stack.post(prepared.request);
        expect(status, JSON.stringify(body)).to.equal(422);
        expect(body.error.code).to.equal("index_failed");
        expect(body.error.message).to.contain("ERC20: transfer amount exceeds balance");
      } finally {
        stack.marketplace.ctx.chain.transferIdentity = original;
      }
      await expectNothingListed(prepared.resourceId, creator.address, 0n);
      const orphan = (await stack.get(`/agents/${prepared.resourceId}/registration.json`)).body;
      expect(orphan.active).to.equal(false);
      const orphanId = BigInt(orphan.registrations[0].agentId);
      expect(await stack.chain.contracts.identity.read.ownerOf([orphanId])).to.equal(creator.address);
      expect(await stack.chain.contracts.identity.read.balanceOf([operator])).to.equal(0n);

      await stack.chain.contracts.token.write.transfer([creator.address, balance], { account: holder });
      const retry = await stack.post((await stack.prepare({ slug: "drained", creator })).request);
      expect(retry.status, JSON.stringify(retry.body)).to.equal(201);
      expect(retry.body.agentId).to.equal(orphanId.toString());
    });
  });
});
