import { expect } from "chai";
import { GENERATE_ASK, SOURCE_SCHEMA, TEST_LIMITS } from "../../../testkit/studio/generateAsk.ts";
import type { RecordedAnswer } from "../../../testkit/studio/wireServer.ts";
import { wireProviders } from "../../../testkit/studio/wireServer.ts";
import { openaiProvider } from "./openaiProvider.ts";
import { ProviderError } from "./providerError.ts";

const schema = SOURCE_SCHEMA;
const ask = GENERATE_ASK;

const content = (text: string, extra: Record<string, unknown> = {}): RecordedAnswer => ({
  json: {
    id: "chatcmpl-1",
    object: "chat.completion",
    model: "m",
    choices: [{ index: 0, message: { role: "assistant", content: text, ...extra }, finish_reason: "stop" }],
  },
});
const toolCall = (args: string): RecordedAnswer => ({
  json: {
    choices: [
      {
        index: 0,
        message: {
          role: "assistant",
          content: null,
          tool_calls: [{ id: "call_1", type: "function", function: { name: "handler_source", arguments: args } }],
        },
        finish_reason: "tool_calls",
      },
    ],
  },
});

describe("openai wire adapter (a local server speaking chat completions)", function () {
  this.timeout(30_000);
  const wires = wireProviders((url) =>
    openaiProvider({ url: `${url}/v1`, model: "qwen2.5-coder", key: "sk-test", ...TEST_LIMITS }),
  );
  const serve = wires.serve;
  afterEach(() => wires.closeAll());

  it("POSTs /v1/chat/completions with the bearer key, system + messages, max_tokens and response_format json_schema", async function () {
    const { wire, provider } = await serve([content('{"source":"export default {}"}')]);
    expect(await provider.generate(ask)).to.deep.equal({ source: "export default {}" });
    const [request] = wire.requests;
    expect(request?.method).to.equal("POST");
    expect(request?.path).to.equal("/v1/chat/completions");
    expect(request?.headers.authorization).to.equal("Bearer sk-test");
    expect(request?.headers["content-type"]).to.equal("application/json");
    expect(request?.body.model).to.equal("qwen2.5-coder");
    expect(request?.body.max_tokens).to.equal(4096);
    expect(request?.body.temperature).to.equal(0);
    expect(request?.body.messages).to.deep.equal([
      { role: "system", content: "You write handlers." },
      { role: "user", content: "Echo." },
    ]);
    expect(request?.body.response_format).to.deep.equal({
      type: "json_schema",
      json_schema: { name: "handler_source", schema, strict: false },
    });
  });

  it("falls back to a forced tool call when the server answers malformed JSON, and keeps that mode", async function () {
    const { wire, provider } = await serve([
      content("{ not json"),
      toolCall('{"source":"v1"}'),
      toolCall('{"source":"v2"}'),
    ]);
    expect(await provider.generate(ask)).to.deep.equal({ source: "v1" });
    expect(wire.requests[1]?.body.tools[0]).to.deep.equal({
      type: "function",
      function: { name: "handler_source", description: "Return the handler_source.", parameters: schema },
    });
    expect(wire.requests[1]?.body.tool_choice).to.deep.equal({
      type: "function",
      function: { name: "handler_source" },
    });
    expect(wire.requests[1]?.body.response_format).to.equal(undefined);
    expect(provider.mode()).to.equal("tool");
    expect(await provider.generate(ask)).to.deep.equal({ source: "v2" });
    expect(wire.requests).to.have.length(3);
  });

  it("falls back to prompt-and-parse when the server refuses schemas and tools (400)", async function () {
    const { wire, provider } = await serve([
      { status: 400, json: { error: { message: "response_format is not supported" } } },
      { status: 400, json: { error: { message: "tools are not supported" } } },
      content('Sure! ```json\n{"source":"parsed"}\n```'),
    ]);
    expect(await provider.generate(ask)).to.deep.equal({ source: "parsed" });
    expect(wire.requests[2]?.body.messages[0].content).to.match(/Answer with one JSON object and nothing else/);
    expect(wire.requests[2]?.body.tools).to.equal(undefined);
  });

  it("reports a refusal without retrying", async function () {
    const { wire, provider } = await serve([content("", { content: null, refusal: "I can't help with that." })]);
    const error = await provider.generate(ask).catch((e: unknown) => e);
    expect((error as ProviderError).code).to.equal("refusal");
    expect((error as ProviderError).message).to.match(/I can't help with that/);
    expect(wire.requests).to.have.length(1);
  });

  it("retries 429 after Retry-After", async function () {
    const { wire, provider } = await serve([
      { status: 429, headers: { "retry-after": "1" }, json: { error: { message: "rate limited" } } },
      content('{"source":"after the wait"}'),
    ]);
    const started = Date.now();
    expect(await provider.generate(ask)).to.deep.equal({ source: "after the wait" });
    expect(Date.now() - started).to.be.at.least(950);
    expect(wire.requests).to.have.length(2);
  });

  it("retries a 500 and gives up with http_500 after the configured retries", async function () {
    const recovered = await serve([{ status: 500, raw: "oops" }, content('{"source":"ok"}')]);
    expect(await recovered.provider.generate(ask)).to.deep.equal({ source: "ok" });
    const failing = await serve([{ status: 500, raw: "oops" }]);
    const error = await failing.provider.generate(ask).catch((e: unknown) => e);
    expect((error as ProviderError).code).to.equal("http_500");
    expect(failing.wire.requests).to.have.length(3);
  });

  it("gives a server that never answers one deadline per generate, whatever the retries", async function () {
    const { wire } = await serve([{ hang: true }]);
    const provider = openaiProvider({ url: `${wire.url}/v1`, model: "m", deadlineMs: 1_000, retries: 3 });
    const error = await provider.generate(ask).catch((e: unknown) => e);
    expect(error).to.be.instanceOf(ProviderError);
    expect((error as ProviderError).code).to.equal("timeout");
    expect(wire.requests).to.have.length(1);
  });

  it("refuses an answer that does not validate against the schema in every mode", async function () {
    const { provider } = await serve([content('{"wrong":1}'), toolCall('{"wrong":1}'), content('{"wrong":1}')]);
    const error = await provider.generate(ask).catch((e: unknown) => e);
    expect((error as ProviderError).code).to.equal("malformed");
  });
});
