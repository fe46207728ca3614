import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "chai";
import type { Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { devKey, ROLE } from "../../../testkit/chain/localChain.ts";
import { getJson, postJson } from "../../../testkit/facilitator/startFacilitator.ts";
import type { GateStack } from "../../../testkit/gate/gateStack.ts";
import { startGateStack } from "../../../testkit/gate/gateStack.ts";
import {
  bearer,
  testCreator as creator,
  payHosted,
  registerSample,
  sampleBody,
  startTestHost,
  TEST_HOST_TOKEN as TOKEN,
} from "../../../testkit/host/testHost.ts";
import { decodeBase64Json } from "../../protocol/base64.ts";
import { resourceIdOf } from "../../protocol/resourceId.ts";
import { cardSchema, cardTemplateSchema } from "../../protocol/schemas/card.ts";
import { errorBodySchema } from "../../protocol/schemas/errorBody.ts";
import { receiptSchema } from "../../protocol/schemas/receipt.ts";
import type { Host } from "../createHost.ts";
import type { SampleName } from "../samples/sampleDeployment.ts";

describe("host", function () {
  let stack: GateStack;
  let dataDir: string;
  let host: Host;
  const other = privateKeyToAccount(devKey(ROLE.other)).address;

  const start = (env: Record<string, string | undefined> = {}) => startTestHost(stack, { DATA_DIR: dataDir, ...env });
  const sample = (name: SampleName, overrides: Record<string, unknown> = {}) => sampleBody(stack, name, overrides);
  const deploy = (body: unknown, headers: Record<string, string> = bearer) =>
    postJson(`${host.url}/deployments`, body, headers);
  const register = (name: SampleName, slug: string = name) => registerSample(stack, name, slug);
  const pay = (slug: string, body: unknown) => payHosted(stack, host.url, slug, body);

  before(async function () {
    stack = await startGateStack();
    dataDir = await mkdtemp(join(tmpdir(), "host-test-"));
    host = await start();
  });

  after(async function () {
    await host?.stop();
    await stack?.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  describe("health", function () {
    it("answers /health and /ready", async function () {
      expect((await getJson(`${host.url}/health`)).body).to.deep.equal({ ok: true, service: "host" });
      expect((await getJson(`${host.url}/ready`)).body).to.deep.equal({ ready: true });
    });

    it("answers 404 for an unknown resource", async function () {
      const answer = await postJson(`${host.url}/r/nothing-here/call`, {});
      expect(answer.status).to.equal(404);
      expect(errorBodySchema.safeParse(answer.body).success).to.equal(true);
    });
  });

  describe("POST /deployments: authorization", function () {
    it("refuses a missing or wrong bearer token with 401", async function () {
      const attempts: Record<string, string>[] = [
        {},
        { authorization: "Bearer wrong-token-000000000" },
        { authorization: TOKEN },
      ];
      for (const headers of attempts) {
        const answer = await deploy(sample("echo"), headers);
        expect(answer.status).to.equal(401);
        expect(answer.body.error.code).to.equal("unauthorized");
      }
    });

    it("refuses every deploy when no token is configured", async function () {
      const open = await start({ HOST_TOKEN: undefined, DATA_DIR: `${dataDir}-open` });
      try {
        const answer = await postJson(`${open.url}/deployments`, sample("echo"), bearer);
        expect(answer.status).to.equal(401);
        expect(answer.body.error.message).to.match(/no HOST_TOKEN/);
      } finally {
        await open.stop();
        await rm(`${dataDir}-open`, { recursive: true, force: true });
      }
    });
  });

  describe("POST /deployments: validation", function () {
    const invalid: [string, Record<string, unknown>][] = [
      ["a bad slug", { slug: "Not A Slug" }],
      ["a malformed creator", { creator: "0x1234" }],
      ["no source", { source: "" }],
      ["an unknown field", { extra: true }],
      [
        "pricing that is not a base-unit string",
        { pricing: { model: "metered", base: 1000, perKB: "200", max: "50000" } },
      ],
      ["a negative multiplier", { computeMultiplier: -1 }],
      ["a card that is not a card", { card: { name: "x" } }],
      ["a network allow-list entry that is not a CIDR", { allowNetwork: ["example.com"] }],
    ];
    for (const [name, override] of invalid) {
      it(`answers 400 to ${name}`, async function () {
        const answer = await deploy(sample("echo", override));
        expect(answer.status).to.equal(400);
        expect(answer.body.error.code).to.equal("invalid_request");
      });
    }

    it("names what is wrong with a body that is not JSON: its content type (415) or its text (400)", async function () {
      const plain = await deploy(JSON.stringify(sample("echo")), { ...bearer, "content-type": "text/plain" });
      expect(plain.status).to.equal(415);
      expect(plain.body.error).to.deep.equal({
        code: "unsupported_media_type",
        message: "a request body is JSON (content-type application/json)",
      });
      const broken = await deploy("{not json");
      expect(broken.status).to.equal(400);
      expect(broken.body.error.message).to.match(/^a request body is not JSON: /);
    });

    const mismatched: [string, (body: ReturnType<typeof sample>) => unknown, RegExp][] = [
      [
        "a card naming another asset",
        (b) => ({ ...b, card: { ...b.card, x402: { ...b.card.x402, asset: stack.chain.addresses.registry } } }),
        /asset/,
      ],
      [
        "a card naming another escrow",
        (b) => ({ ...b, card: { ...b.card, x402: { ...b.card.x402, escrow: stack.chain.addresses.registry } } }),
        /escrow/,
      ],
      ["card pricing that differs from pricing", (b) => ({ ...b, pricing: { ...b.pricing, max: "1" } }), /pricing/],
      [
        "a card whose payTo is another resource",
        (b) => ({ ...b, card: { ...b.card, x402: { ...b.card.x402, payTo: `0x${"ab".repeat(32)}` } } }),
        /payTo/,
      ],
      [
        "a request schema that does not compile",
        (b) => ({ ...b, requestSchema: { type: "no-such-type" } }),
        /requestSchema/,
      ],
      [
        "a response schema with an unknown keyword",
        (b) => ({ ...b, responseSchema: { type: "object", frobnicate: 1 } }),
        /responseSchema/,
      ],
      [
        "a schema pattern that can backtrack catastrophically",
        (b) => ({ ...b, requestSchema: { type: "object", properties: { a: { type: "string", pattern: "^(a+)+$" } } } }),
        /backtrack/,
      ],
      ["a network allow-list reaching loopback", (b) => ({ ...b, allowNetwork: ["127.0.0.1/32"] }), /loopback/],
      [
        // Before, 500: the store's JSON.stringify ran out of stack on a sample request nested 400,000 deep.
        "a sample request nested deeper than any API's shape",
        (b) => ({ ...b, sampleRequest: JSON.parse(`${'{"a":'.repeat(600)}1${"}".repeat(600)}`) }),
        /nests arrays and objects deeper than 512/,
      ],
      [
        "a network allow-list reaching cloud metadata",
        (b) => ({ ...b, allowNetwork: ["169.254.169.254/32"] }),
        /link-local/,
      ],
    ];
    for (const [name, change, message] of mismatched) {
      it(`answers 400 to ${name}`, async function () {
        const answer = await deploy(change(sample("echo")));
        expect(answer.status).to.equal(400);
        expect(answer.body.error.message).to.match(message);
      });
    }

    it("answers 422 handler_failed to a handler that does not load", async function () {
      const answer = await deploy(sample("echo", { slug: "broken", source: "export default {" }));
      expect(answer.status).to.equal(422);
      expect(answer.body.error.code).to.equal("handler_failed");
      expect((await getJson(`${host.url}/r/broken/health`)).status).to.equal(404);
    });

    it("gives a module's load SANDBOX_START_TIMEOUT_MS, not the handler's call timeout", async function () {
      const ownDir = await mkdtemp(join(tmpdir(), "host-start-timeout-"));
      const own = await startTestHost(stack, {
        DATA_DIR: ownDir,
        HANDLER_TIMEOUT_MS: "5000",
        SANDBOX_START_TIMEOUT_MS: "1500",
      });
      try {
        const stuck = sample("echo", { slug: "stuck", source: "for (;;) {}\nexport default { fetch() {} }" });
        const answer = await postJson(`${own.url}/deployments`, stuck, bearer);
        expect(answer.status).to.equal(422);
        expect(answer.body.error).to.deep.include({ code: "handler_failed" });
        expect(answer.body.error.message).to.equal("the module did not finish loading within 1500 ms");
      } finally {
        await own.stop();
        await rm(ownDir, { recursive: true, force: true });
      }
    });
  });

  describe("deploying and calling a resource", function () {
    let resourceId: Hex;

    it("deploys echo: 201 with the resource URL and resourceId = keccak256(abi.encode(creator, slug))", async function () {
      const answer = await deploy(sample("echo"));
      expect(answer.status).to.equal(201);
      resourceId = resourceIdOf(creator, "echo");
      expect(answer.body).to.deep.include({
        resourceUrl: `${host.url}/r/echo`,
        resourceId,
        slug: "echo",
        agentId: null,
      });
      expect(await register("echo")).to.equal(resourceId);
    });

    it("serves the card with url and payTo finalized, agentId still a placeholder", async function () {
      const answer = await getJson(`${host.url}/r/echo/.well-known/agent-card.json`);
      expect(answer.status).to.equal(200);
      const card = cardTemplateSchema.parse(answer.body);
      expect(card.url).to.equal(`${host.url}/r/echo/call`);
      expect(card.x402.payTo).to.equal(resourceId);
      expect(card.identity.agentId).to.equal("{{AGENT_ID}}");
      expect(cardSchema.safeParse(answer.body).success).to.equal(false);
    });

    it("takes a paid call at {resource_url}/call", async function () {
      const answer = await pay("echo", { hello: "host" });
      expect(answer.status).to.equal(200);
      expect(answer.body).to.deep.equal({ echo: { hello: "host" } });
      expect(receiptSchema.parse(decodeBase64Json(answer.headers.get("payment-response")!)).payTo).to.equal(resourceId);
      const quote = await postJson(`${host.url}/r/echo/call`, {});
      expect(quote.status).to.equal(402);
      expect(quote.body.resource.url).to.equal(`${host.url}/r/echo/call`);
    });

    it("finalizes identity.agentId with POST /deployments/:slug/identity", async function () {
      expect((await postJson(`${host.url}/deployments/echo/identity`, { agentId: "7" })).status).to.equal(401);
      expect((await postJson(`${host.url}/deployments/echo/identity`, { agentId: 7 }, bearer)).status).to.equal(400);
      expect((await postJson(`${host.url}/deployments/nope/identity`, { agentId: "7" }, bearer)).status).to.equal(404);
      const answer = await postJson(`${host.url}/deployments/echo/identity`, { agentId: "7" }, bearer);
      expect(answer.status).to.equal(200);
      expect(answer.body.agentId).to.equal("7");
      const card = cardSchema.parse((await getJson(`${host.url}/r/echo/.well-known/agent-card.json`)).body);
      expect(card.identity.agentId).to.equal("7");
      expect(card.x402.payTo).to.equal(resourceId);
    });

    it("refuses the slug to another creator (409) and lets its creator redeploy (200), keeping the agent id", async function () {
      const taken = await deploy(sample("echo", { creator: other }));
      expect(taken.status).to.equal(409);
      expect(taken.body.error.code).to.equal("slug_taken");
      const source =
        "export default { async fetch(request) { return Response.json({ echo: { v2: await request.json() } }) } }";
      const again = await deploy(sample("echo", { source }));
      expect(again.status).to.equal(200);
      expect(again.body.agentId).to.equal("7");
      expect((await pay("echo", { a: 1 })).body).to.deep.equal({ echo: { v2: { a: 1 } } });
    });

    it("lists deployments to the bearer", async function () {
      expect((await getJson(`${host.url}/deployments`)).status).to.equal(401);
      const list = await getJson(`${host.url}/deployments`, bearer);
      expect(list.body.map((d: { slug: string }) => d.slug)).to.deep.equal(["echo"]);
    });

    it("removes a deployment with DELETE /deployments/:slug (bearer): its gate and file are gone", async function () {
      expect((await deploy(sample("echo", { slug: "short-lived" }))).status).to.equal(201);
      expect((await getJson(`${host.url}/r/short-lived/health`)).status).to.equal(200);
      const unauthorized = await fetch(`${host.url}/deployments/short-lived`, { method: "DELETE" });
      expect(unauthorized.status).to.equal(401);
      const removed = await fetch(`${host.url}/deployments/short-lived`, { method: "DELETE", headers: bearer });
      expect(removed.status).to.equal(200);
      expect(((await removed.json()) as { removed: boolean }).removed).to.equal(true);
      expect((await getJson(`${host.url}/r/short-lived/health`)).status).to.equal(404);
      const again = await fetch(`${host.url}/deployments/short-lived`, { method: "DELETE", headers: bearer });
      expect(again.status).to.equal(404);
      const list = await getJson(`${host.url}/deployments`, bearer);
      expect(list.body.map((d: { slug: string }) => d.slug)).to.deep.equal(["echo"]);
    });
  });

  describe("the sample handlers", function () {
    before(async function () {
      for (const name of ["text-stats", "digest", "json-check"] as const) {
        const answer = await deploy(sample(name));
        expect(answer.status, JSON.stringify(answer.body)).to.equal(201);
        await register(name);
      }
    });

    it("text-stats counts words, sentences and frequent words", async function () {
      const answer = await pay("text-stats", { text: "The cat sat. The cat ran!\nA dog barked?", top: 2 });
      expect(answer.status).to.equal(200);
      expect(answer.body).to.deep.equal({
        characters: 39,
        words: 9,
        uniqueWords: 7,
        lines: 2,
        sentences: 3,
        averageWordLength: 3.11,
        topWords: [
          { word: "cat", count: 2 },
          { word: "the", count: 2 },
        ],
      });
    });

    it("text-stats refuses a body outside its schema before payment", async function () {
      expect((await postJson(`${host.url}/r/text-stats/call`, { text: 1 })).status).to.equal(400);
    });

    it("digest hashes text and base64 bytes", async function () {
      const text = await pay("digest", { text: "hello" });
      expect(text.body).to.deep.include({
        algorithm: "SHA-256",
        bytes: 5,
        hex: "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824",
      });
      const bytes = await pay("digest", { base64: Buffer.from("hello").toString("base64"), algorithm: "SHA-1" });
      expect(bytes.body).to.deep.include({ algorithm: "SHA-1", hex: "aaf4c61ddcc5e8a2dabede0f3b482cd9aea9434d" });
      expect((await postJson(`${host.url}/r/digest/call`, { text: "a", base64: "YQ==" })).status).to.equal(400);
    });

    it("json-check validates and canonicalises JSON", async function () {
      const valid = await pay("json-check", { json: '{"b":1,"a":[true,null,{"c":"d"}]}' });
      expect(valid.body).to.deep.equal({
        valid: true,
        type: "object",
        depth: 4,
        values: 7,
        keys: ["b", "a"],
        canonical: '{"a":[true,null,{"c":"d"}],"b":1}',
      });
      const invalid = await pay("json-check", { json: '{"a":' });
      expect(invalid.status).to.equal(200);
      expect(invalid.body.valid).to.equal(false);
      expect(invalid.body.error).to.be.a("string");
    });
  });

  describe("a restart", function () {
    it("loads every deployment from the data directory, with its card and agent id, and serves them", async function () {
      const before = (await getJson(`${host.url}/r/echo/.well-known/agent-card.json`)).body;
      await host.stop();
      host = await start();
      const list = await getJson(`${host.url}/deployments`, bearer);
      expect(list.body.map((d: { slug: string }) => d.slug).sort()).to.deep.equal([
        "digest",
        "echo",
        "json-check",
        "text-stats",
      ]);
      const card = (await getJson(`${host.url}/r/echo/.well-known/agent-card.json`)).body;
      expect(card.identity.agentId).to.equal("7");
      expect({ ...card, url: undefined }).to.deep.equal({ ...before, url: undefined });
      expect(card.url).to.equal(`${host.url}/r/echo/call`);
      expect((await pay("echo", { after: "restart" })).body).to.deep.equal({ echo: { v2: { after: "restart" } } });
    });
  });
});
