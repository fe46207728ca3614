import { expect } from "chai";
import type { EndpointContract } from "../../contract.ts";
import { verifyHandler } from "../../verify/verifyHandler.ts";

/** A contract for "the length of a text", which every handler below claims to fulfil. */
const contract: EndpointContract = {
  slug: "text-length",
  name: "Text length",
  description: "The number of UTF-16 units of a text.",
  category: "text",
  tags: ["text"],
  requestSchema: {
    type: "object",
    additionalProperties: false,
    required: ["text"],
    properties: { text: { type: "string", maxLength: 200 } },
  },
  responseSchema: {
    type: "object",
    additionalProperties: false,
    required: ["length"],
    properties: { length: { type: "integer", minimum: 0 } },
  },
  examples: [
    { input: { text: "abc" }, output: { length: 3 } },
    { input: { text: "" }, output: { length: 0 } },
    { input: { text: "hello world" }, output: { length: 11 } },
  ],
  edgeCases: [],
  maxResponseBytes: 256,
  price: { base: "1000", perKB: "100", max: "1100" },
  origin: { provider: "test" },
};

const handler = (body: string) =>
  `export default { async fetch(request) { const input = await request.json(); ${body} } };`;

function failing(report: Awaited<ReturnType<typeof verifyHandler>>) {
  return report.checks.filter((c) => !c.passed).map((c) => c.check);
}

describe("verify catches broken handlers", function () {
  this.timeout(120_000);

  it("passes a correct handler", async function () {
    const report = await verifyHandler({
      contract,
      source: handler("return Response.json({ length: input.text.length });"),
    });
    expect(failing(report)).to.deep.equal([]);
    expect(report.passed).to.equal(true);
    expect(report.generatedInputs).to.be.at.least(100);
    expect(report.timing.calls).to.be.greaterThan(100);
  });

  it("reports a handler that crashes on some inputs, with the failing input", async function () {
    const report = await verifyHandler({
      contract,
      source: handler(
        'if (/[^\\x00-\\x7f]/.test(input.text)) throw new Error("boom"); return Response.json({ length: input.text.length });',
      ),
    });
    expect(report.passed).to.equal(false);
    expect(failing(report)).to.deep.equal(["generated_inputs"]);
    const failure = report.checks.find((c) => c.check === "generated_inputs")?.failures[0];
    expect((failure!.input as { text: string }).text).to.match(/[^ -~\t\n\r]/u);
  });

  it("reports a handler that loops forever, and the sandbox keeps serving after it", async function () {
    const report = await verifyHandler({
      contract,
      callTimeoutMs: 1_000,
      source: handler('if (input.text.includes("x")) for (;;) {} return Response.json({ length: input.text.length });'),
    });
    expect(report.passed).to.equal(false);
    const failure = report.checks.find((c) => c.check === "generated_inputs")?.failures[0];
    expect(failure?.error).to.match(/did not answer in time|sandbox failed/);
    expect(report.checks.find((c) => c.check === "examples")?.passed).to.equal(true);
  });

  it("reports a handler that returns the wrong shape", async function () {
    const report = await verifyHandler({
      contract,
      source: handler("return Response.json({ size: input.text.length });"),
    });
    expect(failing(report)).to.include.members(["examples", "response_schema"]);
    expect(report.checks.find((c) => c.check === "response_schema")?.failures[0]?.actual).to.have.property("size");
  });

  it("reports a handler whose answer exceeds maxResponseBytes", async function () {
    const report = await verifyHandler({
      contract: { ...contract, responseSchema: { type: "object" } },
      source: handler(
        'return Response.json({ length: input.text.length, padding: "x".repeat(input.text.length * 100) });',
      ),
    });
    expect(failing(report)).to.include("response_size");
    expect(report.checks.find((c) => c.check === "response_size")?.failures[0]?.error).to.match(/maxResponseBytes/);
  });

  it("reports a non-deterministic handler", async function () {
    const report = await verifyHandler({
      contract: { ...contract, examples: contract.examples, responseSchema: { type: "object" } },
      source: handler("return Response.json({ length: input.text.length, at: Math.random() });"),
    });
    expect(failing(report)).to.include("deterministic");
  });

  it("reports a handler that does not load", async function () {
    const report = await verifyHandler({ contract, source: "export default { fetch( " });
    expect(failing(report)).to.deep.equal(["loads"]);
  });

  it("reports a handler that tries the network: the sandbox has none", async function () {
    const report = await verifyHandler({
      contract,
      source: handler('await fetch("http://127.0.0.1:9/"); return Response.json({ length: input.text.length });'),
    });
    expect(failing(report)).to.include("examples");
  });

  it("attack: an example a backtracking pattern takes seconds to check stalls only its own draft, not the studio", async function () {
    // Before, the examples and answers were checked on the studio's loop: one example the model wrote stopped every
    // draft and route of the service for as long as the pattern backtracked (139 s in a reviewer's run).
    const slow = {
      ...contract,
      requestSchema: {
        type: "object",
        additionalProperties: false,
        required: ["text"],
        properties: { text: { type: "string", pattern: "^(a|a)+$" } },
      },
      examples: [{ input: { text: `${"a".repeat(27)}!` }, output: { length: 28 } }],
      // Edge cases as slow: the draw of inputs stops after three deadlines, not after hundreds.
      edgeCases: Array.from({ length: 6 }, (_, i) => ({ input: { text: `${"a".repeat(27 + i)}!` }, note: "slow" })),
    };
    let ticks = 0;
    const timer = setInterval(() => ticks++, 50);
    try {
      const report = await verifyHandler({ contract: slow, source: handler("return Response.json({ length: 1 });") });
      const failure = report.checks.find((c) => c.check === "examples_match_request_schema")?.failures[0];
      expect(failure?.error).to.match(/took longer than 1000 ms to check/);
      const draw = report.checks.find((c) => c.check === "generated_inputs")?.failures[0];
      expect(draw?.error).to.match(/the request schema took its deadline on 3 of them/);
    } finally {
      clearInterval(timer);
    }
    expect(ticks, "the loop kept turning while the example was checked").to.be.greaterThan(10);
  });
});
