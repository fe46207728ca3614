import { expect } from "chai";
import { GENERATE_ASK, SOURCE_SCHEMA, TEST_LIMITS } from "../../../testkit/studio/generateAsk.ts";
import { anthropic } from "../../../testkit/studio/modelServers.ts";
import type { RecordedAnswer } from "../../../testkit/studio/wireServer.ts";
import { wireProviders } from "../../../testkit/studio/wireServer.ts";
import { anthropicProvider } from "./anthropicProvider.ts";
import type { ProviderError } from "./providerError.ts";

const schema = SOURCE_SCHEMA;
const KEY = "sk-ant-api03-test-key-0123";
const ask = GENERATE_ASK;

const toolUse = (input: unknown, extra: Record<string, unknown> = {}): RecordedAnswer => ({
  json: {
    id: "msg_1",
    type: "message",
    role: "assistant",
    model: "claude-sonnet-4-5",
    content: [
      { type: "text", text: "Here it is." },
      { type: "tool_use", id: "toolu_1", name: "handler_source", input },
    ],
    stop_reason: "tool_use",
    usage: { input_tokens: 10, output_tokens: 10 },
    ...extra,
  },
});

describe("anthropic wire adapter (a local server speaking the Messages API)", function () {
  this.timeout(30_000);
  const wires = wireProviders((url) =>
    anthropicProvider({ url, model: "claude-sonnet-4-5", key: KEY, ...TEST_LIMITS }),
  );
  const serve = wires.serve;
  afterEach(() => wires.closeAll());

  it("POSTs /v1/messages with x-api-key, anthropic-version, max_tokens and a forced tool with input_schema", async function () {
    const { wire, provider } = await serve([toolUse({ source: "export default {}" })]);
    expect(await provider.generate(ask)).to.deep.equal({ source: "export default {}" });
    const [request] = wire.requests;
    expect(request?.path).to.equal("/v1/messages");
    expect(request?.headers["x-api-key"]).to.equal(KEY);
    expect(request?.headers["anthropic-version"]).to.equal("2023-06-01");
    expect(request?.headers.authorization).to.equal(undefined);
    expect(request?.body.model).to.equal("claude-sonnet-4-5");
    expect(request?.body.max_tokens).to.equal(4096);
    expect(request?.body.system).to.equal("You write handlers.");
    expect(request?.body.messages).to.deep.equal([{ role: "user", content: "Echo." }]);
    expect(request?.body.tools).to.deep.equal([
      { name: "handler_source", description: "Return the handler_source.", input_schema: schema },
    ]);
    expect(request?.body.tool_choice).to.deep.equal({ type: "tool", name: "handler_source" });
  });

  it("reports a refusal (stop_reason refusal)", async function () {
    const { provider } = await serve([{ json: { type: "message", content: [], stop_reason: "refusal" } }]);
    expect(((await provider.generate(ask).catch((e: unknown) => e)) as ProviderError).code).to.equal("refusal");
  });

  it("reports a malformed answer: malformed JSON, no tool call, or a tool input outside the schema", async function () {
    for (const answer of [
      { raw: "{ not json" },
      { json: { type: "message", content: [{ type: "text", text: "no tool" }], stop_reason: "end_turn" } },
      toolUse({ wrong: 1 }),
    ] as RecordedAnswer[]) {
      const { provider } = await serve([answer]);
      expect(((await provider.generate(ask).catch((e: unknown) => e)) as ProviderError).code).to.equal("malformed");
    }
  });

  it("retries 429 after Retry-After and 529/500 with backoff", async function () {
    const { wire, provider } = await serve([
      {
        status: 429,
        headers: { "retry-after": "1" },
        json: { type: "error", error: { type: "rate_limit_error", message: "slow down" } },
      },
      { status: 529, json: { type: "error", error: { type: "overloaded_error", message: "overloaded" } } },
      toolUse({ source: "third time" }),
    ]);
    const started = Date.now();
    expect(await provider.generate(ask)).to.deep.equal({ source: "third time" });
    expect(Date.now() - started).to.be.at.least(950);
    expect(wire.requests).to.have.length(3);
  });

  it("gives up on a persistent 500 with http_500 and the server's message", async function () {
    const { wire, provider } = await serve([
      { status: 500, json: { type: "error", error: { type: "api_error", message: "internal" } } },
    ]);
    const error = (await provider.generate(ask).catch((e: unknown) => e)) as ProviderError;
    expect(error.code).to.equal("http_500");
    expect(error.message).to.match(/internal/);
    expect(wire.requests).to.have.length(3);
  });

  it("gives a server that never answers one deadline per generate, whatever the retries", async function () {
    const { wire } = await serve([{ hang: true }]);
    const provider = anthropicProvider({ url: wire.url, model: "m", key: KEY, deadlineMs: 1_000, retries: 3 });
    expect(((await provider.generate(ask).catch((e: unknown) => e)) as ProviderError).code).to.equal("timeout");
    expect(wire.requests).to.have.length(1);
  });

  it("reports stop_reason max_tokens as a truncated answer, not a malformed one", async function () {
    const { provider } = await serve([anthropic.truncated("handler_source")]);
    const error = (await provider.generate(ask).catch((e: unknown) => e)) as ProviderError;
    expect(error.code).to.equal("truncated");
    expect(error.message).to.match(/stopped at max_tokens \(4096; stop_reason "max_tokens"\)/);
    expect(error.next).to.match(/STUDIO_LLM_MAX_TOKENS/);
  });

  it("shows Anthropic's error body with its type, without the key, and the next step for 401, 404 and 400", async function () {
    const cases = [
      [anthropic.error(401, "authentication_error", `invalid x-api-key ${KEY}`), /refused STUDIO_LLM_KEY/],
      [anthropic.error(404, "not_found_error", "model: claude-sonnet-9"), /set STUDIO_LLM_MODEL/],
      [
        anthropic.error(
          400,
          "invalid_request_error",
          "max_tokens: 100000 > 64000, which is the maximum allowed number of output tokens for claude-sonnet-4-5",
        ),
        /lower STUDIO_LLM_MAX_TOKENS/,
      ],
    ] as const;
    for (const [answer, next] of cases) {
      const { wire, provider } = await serve([answer]);
      const error = (await provider.generate(ask).catch((e: unknown) => e)) as ProviderError;
      const { type, message } = (answer.json as { error: { type: string; message: string } }).error;
      expect(error.message).to.include(`answered ${answer.status}: ${type}: ${message.split(KEY).join("***")}`);
      expect(error.message).to.not.include(KEY);
      expect(error.next).to.match(next);
      expect(wire.requests).to.have.length(1);
    }
  });

  it("reports a body cut off mid-answer as interrupted, with the URL", async function () {
    const { wire, provider } = await serve([{ ...anthropic.toolUse("handler_source", { source: "x" }), cut: 30 }]);
    const error = (await provider.generate(ask).catch((e: unknown) => e)) as ProviderError;
    expect(error.code).to.equal("interrupted");
    expect(error.message).to.include(`${wire.url}/v1/messages`);
  });
});
