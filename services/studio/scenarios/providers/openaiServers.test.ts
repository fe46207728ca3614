import { expect } from "chai";
import { GENERATE_ASK, TEST_LIMITS } from "../../../../testkit/studio/generateAsk.ts";
import { llamaCpp, ollama, openai, vllm } from "../../../../testkit/studio/modelServers.ts";
import type { WireAnswer } from "../../../../testkit/studio/wireServer.ts";
import { wireProviders } from "../../../../testkit/studio/wireServer.ts";
import type { OpenAiProviderParameters } from "../../providers/openaiProvider.ts";
import { openaiProvider } from "../../providers/openaiProvider.ts";
import type { ProviderError } from "../../providers/providerError.ts";

const ask = GENERATE_ASK;
const NAME = ask.name;
const VALID = '{"source":"export default {}"}';
const KEY = "sk-proj-Zt9qX2w7LmN4vB8c";

describe("the openai provider against how llama.cpp, Ollama, vLLM and OpenAI really answer", function () {
  this.timeout(30_000);
  let overrides: Partial<OpenAiProviderParameters> = {};
  const wires = wireProviders((url) =>
    openaiProvider({ url: `${url}/v1`, model: "qwen2.5-coder:14b", key: KEY, ...TEST_LIMITS, ...overrides }),
  );
  afterEach(async () => {
    overrides = {};
    await wires.closeAll();
  });
  const failure = async (answers: WireAnswer[]) => {
    const { wire, provider } = await wires.serve(answers);
    const error = (await provider.generate(ask).catch((e: unknown) => e)) as ProviderError;
    return { error, wire };
  };

  describe("error bodies are shown, bounded, without the key, with what to do next", function () {
    it("404 at a URL without /v1 (Ollama's text 404, OpenAI's Invalid URL, vLLM's FastAPI 404) hints at the API base", async function () {
      for (const answer of [ollama.wrongPath(), openai.invalidUrl(), vllm.notFound()]) {
        const { error, wire } = await failure([answer]);
        expect(error.code).to.equal("http_404");
        expect(error.message).to.match(
          /\/v1\/chat\/completions answered 404: .*(404 page not found|Invalid URL \(POST \/chat\/completions\)|Not Found)$/,
        );
        expect(error.next).to.match(/STUDIO_LLM_URL must be the API base .* usually ending in \/v1/);
        expect(wire.requests, "a 404 is no mode refusal: nothing else is tried").to.have.length(1);
      }
    });

    it("404 for an unknown model (Ollama, OpenAI, vLLM) names the model setting instead", async function () {
      for (const answer of [
        ollama.modelNotFound("qwen2.5-coder:14b"),
        openai.modelNotFound("qwen2.5-coder:14b"),
        vllm.modelNotFound("qwen2.5-coder:14b"),
      ]) {
        const { error } = await failure([answer]);
        expect(error.code).to.equal("http_404");
        expect(error.message).to.include("qwen2.5-coder:14b");
        expect(error.next).to.match(/no model "qwen2\.5-coder:14b": set STUDIO_LLM_MODEL/);
      }
    });

    it("401 repeats the server's message but never the key it echoes", async function () {
      const { error } = await failure([openai.invalidKey(KEY)]);
      expect(error.code).to.equal("http_401");
      expect(error.message).to.include("invalid_request_error/invalid_api_key: Incorrect API key provided: ***.");
      expect(error.message).to.not.include(KEY);
      expect(error.next).to.match(/refused STUDIO_LLM_KEY/);
      const vllmKey = await failure([vllm.unauthorized()]);
      expect(vllmKey.error.message).to.match(/answered 401: Unauthorized$/);
    });

    it("a 400 that is not a refusal of the mode (context exceeded: llama.cpp, vLLM before 0.10) is reported, not taken for 'mode not supported'", async function () {
      for (const answer of [llamaCpp.contextExceeded(), vllm.contextExceeded()]) {
        const { error, wire } = await failure([answer]);
        expect(error.code).to.equal("http_400");
        expect(error.message).to.match(/exceeds the available context size|maximum context length is 8192 tokens/);
        expect(error.next).to.match(/lower STUDIO_LLM_MAX_TOKENS/);
        expect(wire.requests).to.have.length(1);
      }
    });

    it("keeps a long error body to one bounded line", async function () {
      const { error } = await failure([{ status: 400, raw: `<html>${"x".repeat(5_000)}</html>` }]);
      expect(error.message.length).to.be.lessThan(600);
      expect(error.message).to.match(/…$/);
    });

    it("does not retry a 501 (llama.cpp's not_supported_error) and shows its message", async function () {
      const { error, wire } = await failure([llamaCpp.notSupported("This server does not support chat completions")]);
      expect(error.code).to.equal("http_501");
      expect(error.message).to.match(/not_supported_error: This server does not support chat completions$/);
      expect(wire.requests).to.have.length(1);
    });

    it("does not retry OpenAI's insufficient_quota 429, and says to add credit", async function () {
      const { error, wire } = await failure([openai.insufficientQuota()]);
      expect(error.code).to.equal("http_429");
      expect(error.next).to.match(/no quota left/);
      expect(wire.requests).to.have.length(1);
    });
  });

  describe("a mode the server cannot take is recognised by what it says", function () {
    it("llama.cpp without --jinja (500 on tools) and without json_schema (500): straight to prompting, no retries of those 500s", async function () {
      const { wire, provider } = await wires.serve([llamaCpp.withoutJinja(`Here you go:\n${VALID}`)]);
      expect(await provider.generate(ask)).to.deep.equal({ source: "export default {}" });
      expect(wire.requests.map((r) => Boolean(r.body.response_format) || Boolean(r.body.tools))).to.deep.equal([
        true,
        true,
        false,
      ]);
      expect(provider.mode()).to.equal("prompt");
    });

    it("OpenAI refusing json_schema for a model: the forced tool call is used", async function () {
      const { wire, provider } = await wires.serve([openai.jsonSchemaUnsupported(), openai.toolCall(NAME, VALID)]);
      expect(await provider.generate(ask)).to.deep.equal({ source: "export default {}" });
      expect(wire.requests).to.have.length(2);
      expect(provider.mode()).to.equal("tool");
    });

    it("Ollama's model without tools (400 'does not support tools') after an invalid json_schema answer: prompting", async function () {
      const { provider } = await wires.serve([
        ollama.content('{"wrong":1}'),
        ollama.noTools("gemma3:4b"),
        ollama.content(`\`\`\`json\n${VALID}\n\`\`\``),
      ]);
      expect(await provider.generate(ask)).to.deep.equal({ source: "export default {}" });
    });

    it("vLLM's schema that xgrammar cannot take (400), in both structured modes: prompting", async function () {
      const { wire, provider } = await wires.serve([
        vllm.schemaUnsupported(),
        vllm.schemaUnsupported(),
        vllm.content(VALID),
      ]);
      expect(await provider.generate(ask)).to.deep.equal({ source: "export default {}" });
      expect(wire.requests).to.have.length(3);
    });
  });

  describe("tool call shapes", function () {
    it("reads Ollama's (arguments a JSON string, an index, empty content) and vLLM's (named call, finish_reason stop)", async function () {
      for (const answer of [ollama.toolCall(NAME, VALID), vllm.namedToolCall(NAME, VALID)]) {
        const { provider } = await wires.serve([openai.jsonSchemaUnsupported(), answer]);
        expect(await provider.generate(ask)).to.deep.equal({ source: "export default {}" });
      }
    });

    it("moves on when llama.cpp reads the object tool_choice as 'auto' and the model answers text instead", async function () {
      const { provider } = await wires.serve([
        llamaCpp.content('{"wrong":1}'),
        llamaCpp.content("I would write a handler that exports default."),
        llamaCpp.content(VALID),
      ]);
      expect(await provider.generate(ask)).to.deep.equal({ source: "export default {}" });
      expect(provider.mode()).to.equal("prompt");
    });
  });

  describe("max_tokens and truncation", function () {
    it("sends max_tokens (configurable) and reports finish_reason 'length' as a truncated answer, not invalid JSON", async function () {
      overrides = { maxTokens: 1_000 };
      for (const answer of [openai.truncated('{"source":"export default { asy'), llamaCpp.content('{"sou', "length")]) {
        const { error, wire } = await failure([answer]);
        expect(wire.requests[0]?.body.max_tokens).to.equal(1_000);
        expect(error.code).to.equal("truncated");
        expect(error.message).to.match(/stopped at max_tokens \(1000; finish_reason "length"\)/);
        expect(error.next).to.match(/raise STUDIO_LLM_MAX_TOKENS \(now 1000\)/);
        expect(wire.requests, "a cut answer is not retried in another mode").to.have.length(1);
      }
    });

    it("asks again with max_completion_tokens and without temperature when an OpenAI reasoning model refuses them, and keeps that", async function () {
      const { wire, provider } = await wires.serve([
        openai.maxTokensUnsupported(),
        openai.temperatureUnsupported(),
        openai.content(VALID),
        openai.content(VALID),
      ]);
      expect(await provider.generate(ask)).to.deep.equal({ source: "export default {}" });
      await provider.generate(ask);
      const [first, second, third, fourth] = wire.requests.map((r) => r.body);
      expect([first?.max_tokens, first?.temperature]).to.deep.equal([4096, 0]);
      expect([second?.max_tokens, second?.max_completion_tokens, second?.temperature]).to.deep.equal([
        undefined,
        4096,
        0,
      ]);
      expect([third?.max_completion_tokens, third?.temperature]).to.deep.equal([4096, undefined]);
      expect(fourth?.response_format.type).to.equal("json_schema");
      expect([fourth?.max_completion_tokens, fourth?.temperature]).to.deep.equal([4096, undefined]);
    });
  });

  it("says what each mode answered when none gives valid JSON", async function () {
    const { error } = await failure([
      ollama.content('{"wrong":1}'),
      ollama.toolCall(NAME, "{ not json"),
      ollama.content("no JSON here"),
    ]);
    expect(error.code).to.equal("malformed");
    expect(error.message).to.match(
      /json_schema: not valid against the schema: \/ must have required property 'source'; tool: not JSON: .*; prompt: no answer/,
    );
    expect(error.next).to.match(/STUDIO_LLM_MODEL/);
  });
});
