import { expect } from "chai";
import { asset, escrow, resourceId, validCard } from "../../testkit/protocol/fixtures.ts";
import { compileSchema } from "./compileSchema.ts";
import { createGate } from "./createGate.ts";
import { GateConfigError } from "./gateConfigError.ts";
import type { GateConfig } from "./resolveGateConfig.ts";
import { resolveGateConfig } from "./resolveGateConfig.ts";

const config = (overrides: Partial<GateConfig> = {}): GateConfig => ({
  resourceId,
  escrow,
  token: asset,
  cap: 50_000n,
  pricing: { base: "1000", perKB: "200", computeMultiplier: 1, maxResponseBytes: 65_536 },
  requestSchema: { type: "object" },
  responseSchema: { type: "object" },
  card: validCard(),
  callUrl: "https://weather.example/call",
  facilitatorUrl: "http://127.0.0.1:4020",
  handler: async () => ({ status: 200, contentType: "application/json", body: Buffer.from("{}") }),
  ...overrides,
});

describe("gate configuration", function () {
  it("accepts a consistent configuration and applies defaults", function () {
    const resolved = resolveGateConfig(config());
    expect(resolved).to.deep.include({
      cap: 50_000n,
      maxTimeoutSeconds: 60,
      authorizationSeconds: 3_600,
      handlerTimeoutMs: 10_000,
      maxBodyBytes: 1_048_576,
      acceptExact: true,
    });
    expect(resolved.description).to.equal("Current weather for a city.");
  });

  const refused: [string, Partial<GateConfig>, RegExp][] = [
    ["a card whose cap differs", { cap: 40_000n }, /pricing.max must equal cap/],
    ["a card naming another asset", { token: escrow }, /asset must equal token/],
    ["a card naming another escrow", { escrow: asset }, /escrow must equal escrow/],
    ["a card whose payTo is another resource", { resourceId: `0x${"12".repeat(32)}` }, /payTo must equal resourceId/],
    [
      "a sample request the request schema refuses (no failure could ever be reproduced)",
      { requestSchema: { type: "object", required: ["text"] } },
      /sampleRequest: the request schema refuses it/,
    ],
    ["a card whose url is not the call URL", { callUrl: "https://other.example/call" }, /card.url/],
    [
      "pricing that differs from the card",
      { pricing: { base: "999", perKB: "200", computeMultiplier: 1, maxResponseBytes: 1 } },
      /pricing.base/,
    ],
    [
      "a zero multiplier",
      { pricing: { base: "1000", perKB: "200", computeMultiplier: 0, maxResponseBytes: 1 } },
      /computeMultiplier/,
    ],
    ["a handler timeout that leaves no time to settle", { handlerTimeoutMs: 50_000 }, /handlerTimeoutMs/],
    [
      "an authorization window longer than a facilitator accepts",
      { authorizationSeconds: 3_601 },
      /authorizationSeconds: Too big/,
    ],
    ["a negative authorization window", { authorizationSeconds: -1 }, /authorizationSeconds/],
    [
      "an authorization window shorter than maxTimeoutSeconds and the signing margin",
      { maxTimeoutSeconds: 60, authorizationSeconds: 179 },
      /authorizationSeconds must be at least maxTimeoutSeconds \+ 120 \(180\)/,
    ],
    ["no handler", { handler: undefined as never }, /handler/],
    ["a card that is not a card", { card: { name: "x" } }, /card/],
  ];
  for (const [name, overrides, message] of refused) {
    it(`refuses ${name} at start-up`, function () {
      expect(() => resolveGateConfig(config(overrides))).to.throw(GateConfigError, message);
    });
  }

  it("refuses a request schema that does not compile, at start-up", function () {
    expect(() =>
      createGate(config({ requestSchema: { type: "object", properties: { a: { type: "nope" } } } })),
    ).to.throw(GateConfigError, /requestSchema/);
  });
});

describe("compileSchema", function () {
  for (const pattern of ["^(a+)+$", "(x*)*y", "([a-z]+)*$", "(\\d+){2,}", "(a)\\1"]) {
    it(`refuses the pattern ${pattern}`, function () {
      expect(() => compileSchema({ type: "string", pattern }, "schema")).to.throw(GateConfigError, /backtrack/);
    });
  }

  for (const pattern of ["^[a-z0-9-]+$", "^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==)?$", "^(ab|cd)*$", "^[(a+)]+$"]) {
    it(`accepts the pattern ${pattern}`, function () {
      expect(compileSchema({ type: "string", pattern }, "schema")("ab")).to.be.a("boolean");
    });
  }

  it("treats formats as annotations and refuses unknown keywords", function () {
    expect(compileSchema({ type: "string", format: "email" }, "schema")("not an email")).to.equal(true);
    expect(() => compileSchema({ type: "string", frobnicate: true }, "schema")).to.throw(GateConfigError);
  });
});
