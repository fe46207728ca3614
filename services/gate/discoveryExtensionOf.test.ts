import { expect } from "chai";
import { asset, escrow, resourceId, validCard } from "../../testkit/protocol/fixtures.ts";
import { MAX_DISCOVERY_BYTES } from "../protocol/schemas/discoveryExtension.ts";
import type { JsonSchema } from "./compileSchema.ts";
import { compileSchema } from "./compileSchema.ts";
import { discoveryExtensionOf } from "./discoveryExtensionOf.ts";
import type { GateConfig } from "./resolveGateConfig.ts";
import { resolveGateConfig } from "./resolveGateConfig.ts";

const requestSchema = {
  type: "object",
  required: ["text"],
  additionalProperties: false,
  properties: { text: { type: "string" } },
};
const responseSchema = {
  type: "object",
  required: ["palindrome"],
  additionalProperties: false,
  properties: { palindrome: { type: "boolean" } },
};

function discoveryOf(examples: string[] | undefined, overrides: Partial<GateConfig> = {}) {
  const card = validCard();
  const resolved = resolveGateConfig({
    resourceId,
    escrow,
    token: asset,
    cap: 50_000n,
    pricing: { base: "1000", perKB: "200", computeMultiplier: 1, maxResponseBytes: 65_536 },
    requestSchema,
    responseSchema,
    sampleRequest: { text: "noon" },
    card: { ...card, skills: [{ ...card.skills[0]!, examples }] },
    callUrl: "https://weather.example/call",
    facilitatorUrl: "http://127.0.0.1:4020",
    handler: async () => ({ status: 200, contentType: "application/json", body: Buffer.from("{}") }),
    ...overrides,
  });
  return discoveryExtensionOf(resolved, {
    validateRequest: compileSchema(resolved.requestSchema, "requestSchema"),
    validateResponse: compileSchema(resolved.responseSchema, "responseSchema"),
  });
}

describe("discoveryExtensionOf", function () {
  it("publishes the schemas the gate enforces, with the first card example whose call passes both", function () {
    const { extension } = discoveryOf([
      "not json",
      '{"text":"level"}',
      '{"request":{"text":1},"response":{"palindrome":true}}',
      '{"request":{"text":"kayak"},"response":{"palindrome":"yes"}}',
      '{"request":{"text":"level"},"response":{"palindrome":true}}',
      '{"request":{"text":"abc"},"response":{"palindrome":false}}',
    ]);
    expect(extension!.schema.properties.input.properties.body).to.deep.equal(requestSchema);
    expect(extension!.schema.properties.output.properties.example).to.deep.equal(responseSchema);
    expect(extension!.info.input.body).to.deep.equal({ text: "level" });
    expect(extension!.info.output).to.deep.equal({ type: "json", example: { palindrome: true } });
  });

  it("falls back to the declared sample request, with no example response, when no card example fits", function () {
    for (const examples of [undefined, [], ['{"text":"level"}']]) {
      const { extension } = discoveryOf(examples);
      expect(extension!.info.input.body).to.deep.equal({ text: "noon" });
      expect(extension!.info.output).to.deep.equal({ type: "json" });
    }
  });

  it(`keeps the quote's extensions within ${MAX_DISCOVERY_BYTES} bytes: the example response goes first, then all`, function () {
    const pad = (bytes: number, schema: Record<string, unknown>): JsonSchema => ({
      ...schema,
      description: "x".repeat(bytes),
    });
    const long = JSON.stringify({ request: { text: "level" }, response: { palindrome: true, note: "y".repeat(5000) } });
    const whole = discoveryOf([long], { responseSchema: { type: "object" } });
    expect(whole.extension!.info.output.example).to.deep.include({ palindrome: true });
    const fits = discoveryOf([long], { requestSchema: pad(4000, requestSchema), responseSchema: { type: "object" } });
    expect(fits.extension!.info.output).to.deep.equal({ type: "json" });
    expect(fits.extension!.info.input.body).to.deep.equal({ text: "level" });
    const dropped = discoveryOf(undefined, { responseSchema: pad(MAX_DISCOVERY_BYTES, responseSchema) });
    expect(dropped.extension).to.equal(undefined);
    expect(dropped.dropped).to.match(/bytes in the quote's discovery extension, over its 8192/);
  });
});
