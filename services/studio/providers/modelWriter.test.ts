import { expect } from "chai";
import { llamaCpp } from "../../../testkit/studio/modelServers.ts";
import type { RecordedAnswer } from "../../../testkit/studio/wireServer.ts";
import { startWireServer } from "../../../testkit/studio/wireServer.ts";
import { writeAndVerify } from "../repair.ts";
import { specify } from "../specify.ts";
import { StudioError } from "../studioError.ts";
import { modelWriter } from "./modelWriter.ts";
import { openaiProvider } from "./openaiProvider.ts";

const answer = (value: unknown): RecordedAnswer => ({
  json: {
    choices: [{ index: 0, message: { role: "assistant", content: JSON.stringify(value) }, finish_reason: "stop" }],
  },
});

const CONTRACT = {
  slug: "reverse-text",
  name: "Reverse text",
  description: "Reverses the characters of a text.",
  category: "text",
  tags: ["text", "reverse"],
  requestSchema: {
    type: "object",
    additionalProperties: false,
    required: ["text"],
    properties: { text: { type: "string", maxLength: 1000 } },
  },
  responseSchema: {
    type: "object",
    additionalProperties: false,
    required: ["reversed"],
    properties: { reversed: { type: "string" } },
  },
  examples: [
    { input: { text: "abc" }, output: { reversed: "cba" } },
    { input: { text: "" }, output: { reversed: "" } },
    { input: { text: "héllo" }, output: { reversed: "olléh" } },
  ],
  edgeCases: [{ input: { text: "☃x" }, note: "code points" }],
  maxResponseBytes: 8192,
};

const BROKEN =
  "export default { async fetch(request) { const { text } = await request.json(); return Response.json({ reversed: text }); } };";
const FIXED =
  "export default { async fetch(request) { const { text } = await request.json(); return Response.json({ reversed: Array.from(text).reverse().join('') }); } };";

describe("a model-backed writer over the openai wire format, through specify, verify and repair", function () {
  this.timeout(120_000);

  it("specifies from the model's contract, and repairs a first handler that fails verification", async function () {
    const wire = await startWireServer([answer(CONTRACT), answer({ source: BROKEN }), answer({ source: FIXED })]);
    try {
      const writer = modelWriter(openaiProvider({ url: `${wire.url}/v1`, model: "local-model" }));
      const contract = await specify("Reverse the characters of a text", writer);
      expect(contract.slug).to.match(/^reverse-text-[0-9a-f]{6}$/);
      expect(contract.origin).to.deep.equal({ provider: "openai", model: "local-model" });
      expect(wire.requests[0]?.body.messages[1]).to.deep.equal({
        role: "user",
        content: "Reverse the characters of a text",
      });

      const verified = await writeAndVerify({ contract, writer });
      expect(verified.attempts.map((a) => a.passed)).to.deep.equal([false, true]);
      expect(verified.source).to.equal(FIXED);
      const repair = wire.requests[2]?.body.messages as { role: string; content: string }[];
      expect(repair[2]).to.deep.equal({ role: "assistant", content: JSON.stringify({ source: BROKEN }) });
      expect(repair[3]?.content).to.match(/failed verification/);
      expect(repair[3]?.content).to.include('"check":"examples"');
      expect(repair[3]?.content).to.include('"expected":{"reversed":"cba"}');
    } finally {
      await wire.close();
    }
  });

  it("keeps the verification report when the provider fails during a repair round", async function () {
    const failing = llamaCpp.error(500, "CUDA error: out of memory", "server_error");
    const wire = await startWireServer([answer(CONTRACT), answer({ source: BROKEN }), failing]);
    try {
      const writer = modelWriter(openaiProvider({ url: `${wire.url}/v1`, model: "local-model", retries: 0 }));
      const contract = await specify("Reverse the characters of a text", writer);
      const error = (await writeAndVerify({ contract, writer }).catch((e: unknown) => e)) as StudioError;
      expect(error).to.be.instanceOf(StudioError);
      expect([error.stage, error.code]).to.deep.equal(["write", "provider_http_500"]);
      expect(error.message).to.match(/answered 500: server_error: CUDA error: out of memory/);
      expect(error.next).to.match(/read its log/);
      expect(error.data.round).to.equal(1);
      const report = error.data.report as { passed: boolean; checks: { check: string; passed: boolean }[] };
      expect(report.passed).to.equal(false);
      expect(report.checks.find((c) => c.check === "examples")?.passed).to.equal(false);
      expect(error.data.failures).to.be.an("array").that.is.not.empty;
    } finally {
      await wire.close();
    }
  });

  it("turns a provider refusal into a specify error with the provider's reason", async function () {
    const wire = await startWireServer([
      { json: { choices: [{ index: 0, message: { role: "assistant", content: null, refusal: "No." } }] } },
    ]);
    try {
      const writer = modelWriter(openaiProvider({ url: `${wire.url}/v1`, model: "local-model" }));
      const error = await specify("Reverse the characters of a text", writer).catch((e: unknown) => e);
      expect((error as StudioError).stage).to.equal("specify");
      expect((error as StudioError).code).to.equal("provider_refusal");
      expect((error as StudioError).next).to.match(/rephrase the sentence/);
      expect(error).to.be.instanceOf(StudioError);
    } finally {
      await wire.close();
    }
  });
});
