import type { Server } from "node:http";
import { expect } from "chai";
import { pino } from "pino";
import type { PublicClient } from "viem";
import { createPublicClient, http } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { sleep } from "../../../testkit/sleep.ts";
import { until } from "../../../testkit/until.ts";
import { listen } from "../../http/listen.ts";
import { catalogWriter } from "../catalog/catalogWriter.ts";
import type { StudioTarget } from "../studioTarget.ts";
import { studioChainClient } from "../studioTarget.ts";
import type { StudioAppParameters } from "./createStudioApp.ts";
import { createStudioApp } from "./createStudioApp.ts";
import { createDraftStore } from "./draftStore.ts";

const TOKEN = "studio-token-0123456789abcdef";
const target: StudioTarget = {
  rpcUrl: "http://127.0.0.1:9",
  hostUrl: "http://127.0.0.1:9",
  hostToken: "unused-host-token-0123",
  marketplaceUrl: "http://127.0.0.1:9",
  publishToken: "unused-publish-token-0",
  facilitatorUrl: "http://127.0.0.1:9",
  contracts: {
    token: "0x0000000000000000000000000000000000000001",
    escrow: "0x0000000000000000000000000000000000000002",
    registry: "0x0000000000000000000000000000000000000003",
  },
};
const creator = privateKeyToAccount(generatePrivateKey()).address;

describe("the studio's HTTP service: auth, input and availability", function () {
  const servers: Server[] = [];
  const start = async (overrides: Partial<StudioAppParameters> = {}) => {
    const app = createStudioApp({
      target,
      writer: catalogWriter(),
      buyer: privateKeyToAccount(generatePrivateKey()),
      client: createPublicClient({ transport: http(target.rpcUrl) }) as PublicClient,
      token: TOKEN,
      logger: pino({ level: "silent" }),
      ...overrides,
    });
    const server = await listen(app, 0, "127.0.0.1");
    servers.push(server);
    const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    /** A request to the app: `body` as JSON, or a string as it is, sent as `contentType`. */
    return async (
      method: string,
      path: string,
      body?: unknown,
      token: string | undefined = TOKEN,
      contentType = "application/json",
    ) => {
      const response = await fetch(`${base}${path}`, {
        method,
        headers: { "content-type": contentType, ...(token ? { authorization: `Bearer ${token}` } : {}) },
        body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
      });
      return {
        status: response.status,
        body: (await response.json()) as {
          id?: string;
          status?: string;
          expiresAt?: string;
          error?: { code: string; message: string; next?: string };
        },
      };
    };
  };
  after(() => {
    for (const server of servers) server.close();
  });

  it("attack: an RPC URL holding a provider's API key never reaches a draft; a chain that does not answer is not a bug", async function () {
    // Before, viem's error text ("URL: http://…/v2/KEY") was copied into the draft's error and its events, and the
    // outage was reported as internal_error ("a bug in the studio").
    const rpcUrl = "http://127.0.0.1:9/v2/SECRET-RPC-API-KEY";
    const call = await start({ target: { ...target, rpcUrl }, client: studioChainClient(rpcUrl) });
    const { body } = await call("POST", "/drafts", { sentence: "Return the SHA-256 hex digest of a text", creator });
    const draft = await until(async () => {
      const view = await call("GET", `/drafts/${body.id}`);
      return view.body.status === "drafting" ? undefined : view.body;
    }, 60_000);
    expect(JSON.stringify(draft)).not.to.contain("SECRET-RPC-API-KEY");
    expect(draft.error?.code).to.equal("chain_unavailable");
    expect(draft.error?.message).to.contain("127.0.0.1:9");
  });

  it("answers 503 studio_busy with Retry-After when no draft can be taken now", async function () {
    const call = await start({ drafts: createDraftStore({ working: 0 }) });
    const busy = await call("POST", "/drafts", { sentence: "Reverse a text", creator });
    expect(busy.status).to.equal(503);
    expect(busy.body.error?.code).to.equal("studio_busy");
  });

  it("refuses every request but /health when no token is configured (fail-closed)", async function () {
    const call = await start({ token: undefined });
    expect((await call("GET", "/health", undefined, "")).status).to.equal(200);
    const refused = await call(
      "POST",
      "/drafts",
      { sentence: "Encode text as base64", creator },
      "anything-at-all-0123",
    );
    expect(refused.status).to.equal(401);
    expect(refused.body.error?.message).to.match(/no STUDIO_TOKEN/);
  });

  it("refuses a missing or wrong token with 401", async function () {
    const call = await start();
    expect((await call("GET", "/drafts/x", undefined, "")).status).to.equal(401);
    expect((await call("GET", "/drafts/x", undefined, `${TOKEN}x`)).status).to.equal(401);
  });

  it("names what is wrong with a body that is not JSON: its content type (415) or its text (400)", async function () {
    const call = await start();
    const request = JSON.stringify({ sentence: "Reverse a text", creator });
    const plain = await call("POST", "/drafts", request, TOKEN, "text/plain");
    expect(plain.status).to.equal(415);
    expect(plain.body.error).to.deep.equal({
      code: "unsupported_media_type",
      message: "a request body is JSON (content-type application/json)",
    });
    const broken = await call("POST", "/drafts", "{not json");
    expect(broken.status).to.equal(400);
    expect(broken.body.error?.message).to.match(/^a request body is not JSON: /);
  });

  it("answers 400 for a body it cannot take, 404 for an unknown draft", async function () {
    const call = await start();
    for (const body of [
      {},
      { sentence: 1, creator },
      { sentence: "x", creator: "0x12" },
      { sentence: "x", creator, more: 1 },
    ])
      expect((await call("POST", "/drafts", body)).body.error?.code).to.equal("invalid_request");
    const zero = await call("POST", "/drafts", {
      sentence: "Reverse a text",
      creator: "0x0000000000000000000000000000000000000000",
    });
    expect(zero.status).to.equal(400);
    expect(zero.body.error).to.deep.include({ code: "invalid_request" });
    expect(zero.body.error?.message).to.match(/creator.*zero address/s);
    expect((await call("GET", "/drafts/unknown")).status).to.equal(404);
    expect((await call("POST", "/drafts/unknown/publish", { signatures: {} })).status).to.equal(404);
  });

  it("forgets a draft at rest after its time to live: 410 draft_expired for it, 404 still for an id never issued", async function () {
    let clock = Date.parse("2030-01-01T00:00:00Z");
    const call = await start({ drafts: createDraftStore({ ttlMs: 60_000, now: () => clock }) });
    const created = await call("POST", "/drafts", { sentence: "Read a file from the server disk", creator });
    const id = created.body.id as string;
    let draft = (await call("GET", `/drafts/${id}`)).body;
    for (let i = 0; draft.status === "drafting" && i < 100; i++) {
      await sleep(50);
      draft = (await call("GET", `/drafts/${id}`)).body;
    }
    expect(draft.status).to.equal("failed");
    expect(draft.error?.code).to.equal("forbidden_files");
    expect(draft.error?.next).to.match(/no network, files, secrets/);
    expect(draft.expiresAt).to.equal("2030-01-01T00:01:00.000Z");
    clock += 59_000;
    expect((await call("GET", `/drafts/${id}`)).status).to.equal(200);
    clock += 1_000;
    const expired = await call("GET", `/drafts/${id}`);
    expect(expired.status).to.equal(410);
    expect(expired.body.error?.code).to.equal("draft_expired");
    expect((await call("POST", `/drafts/${id}/publish`, { signatures: {} })).status).to.equal(410);
    expect((await call("GET", "/drafts/00000000-0000-0000-0000-000000000000")).status).to.equal(404);
  });

  it("answers 503 provider_unavailable when the code writer's model cannot be reached", async function () {
    const call = await start({ writer: { ...catalogWriter(), name: "openai", available: async () => false } });
    const answer = await call("POST", "/drafts", { sentence: "Encode text as base64", creator });
    expect(answer.status).to.equal(503);
    expect(answer.body.error?.code).to.equal("provider_unavailable");
  });
});
