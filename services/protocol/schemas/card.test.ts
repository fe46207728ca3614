import { expect } from "chai";
import { asset, resourceId, validCard, validCardTemplate, withValue } from "../../../testkit/protocol/fixtures.ts";
import { SchemaValidationError } from "../errors.ts";
import { cardSchema, cardTemplateSchema, finalizeCard } from "./card.ts";

const nestedPaths = [
  [],
  ["capabilities"],
  ["skills", 0],
  ["x402"],
  ["x402", "pricing"],
  ["cache"],
  ["identity"],
  ["health"],
  ["bond"],
] as const;

describe("cardSchema", () => {
  it("accepts a finalized card", () => expect(cardSchema.safeParse(validCard()).success).to.equal(true));

  it("accepts A2A skill examples", () => {
    expect(
      cardSchema.safeParse(withValue(validCard(), ["skills", 0, "examples"], ['{"city":"Oslo"}'])).success,
    ).to.equal(true);
  });

  it("checksums addresses and lowercases the resource id", () => {
    const card = withValue(
      withValue(validCard(), ["x402", "asset"], asset.toLowerCase()),
      ["x402", "payTo"],
      resourceId.toUpperCase().replace("0X", "0x"),
    );
    const parsed = cardSchema.parse(card);
    expect(parsed.x402.asset).to.equal(asset);
    expect(parsed.x402.payTo).to.equal(resourceId);
  });

  for (const path of nestedPaths) {
    it(`rejects an extra property at ${path.join(".") || "the top level"}`, () => {
      expect(cardSchema.safeParse(withValue(validCard(), [...path, "extra"], 1)).success).to.equal(false);
    });
  }

  const invalid: [string, (string | number)[], unknown][] = [
    ["another protocolVersion", ["protocolVersion"], "0.2.0"],
    ["a non-http url", ["url"], "ftp://weather.example/call"],
    ["another scheme", ["x402", "scheme"], "exact"],
    ["another network", ["x402", "network"], "eip155:1"],
    ["another chainId", ["x402", "chainId"], 1],
    ["a malformed asset", ["x402", "asset"], "0x1234"],
    ["another pricing model", ["x402", "pricing", "model"], "flat"],
    ["a pricing amount with a leading zero", ["x402", "pricing", "max"], "050000"],
    ["a payTo that is an address", ["x402", "payTo"], asset],
    ["a negative ttl", ["cache", "ttlSeconds"], -1],
    ["a fractional ttl", ["cache", "ttlSeconds"], 1.5],
    ["another identity standard", ["identity", "standard"], "erc-721"],
    ["a numeric agentId", ["identity", "agentId"], 7],
    ["a score above 100", ["health", "score"], 101],
    ["a boolean bond", ["bond", "posted"], true],
    ["a negative bond", ["bond", "posted"], "-1"],
    ["no skills", ["skills"], []],
    ["no default input mode", ["defaultInputModes"], []],
    ["a non-string example", ["skills", 0, "examples"], [1]],
  ];
  for (const [name, path, value] of invalid) {
    it(`rejects ${name}`, () =>
      expect(cardSchema.safeParse(withValue(validCard(), path, value)).success).to.equal(false));
  }

  const placeholders: [(string | number)[], string][] = [
    [["url"], "{{CALL_URL}}"],
    [["url"], "https://weather.example/{{CALL_URL}}"],
    [["x402", "payTo"], "{{RESOURCE_ID}}"],
    [["identity", "agentId"], "{{AGENT_ID}}"],
    [["description"], "Weather for {{RESOURCE_ID}}."],
    [["skills", 0, "tags", 0], "{{AGENT_ID}}"],
  ];
  for (const [path, value] of placeholders) {
    it(`rejects the placeholder ${value} at ${path.join(".")}`, () => {
      const result = cardSchema.safeParse(withValue(validCard(), path, value));
      expect(result.success).to.equal(false);
    });
  }

  it("names the path of a placeholder", () => {
    const result = cardSchema.safeParse(withValue(validCard(), ["skills", 0, "tags", 0], "{{AGENT_ID}}"));
    expect(result.error?.issues.map((issue) => issue.path)).to.deep.equal([["skills", 0, "tags", 0]]);
  });
});

describe("cardTemplateSchema", () => {
  it("accepts a generated card with its placeholders", () =>
    expect(cardTemplateSchema.safeParse(validCardTemplate()).success).to.equal(true));

  it("accepts a finalized card too", () => expect(cardTemplateSchema.safeParse(validCard()).success).to.equal(true));

  const misplaced: [string, (string | number)[], string][] = [
    ["a placeholder in the wrong slot", ["url"], "{{RESOURCE_ID}}"],
    ["a placeholder inside a url", ["url"], "https://x.example/{{CALL_URL}}"],
    ["a placeholder in the description", ["description"], "{{CALL_URL}}"],
    ["a placeholder in a skill", ["skills", 0, "id"], "{{AGENT_ID}}"],
  ];
  for (const [name, path, value] of misplaced) {
    it(`rejects ${name}`, () =>
      expect(cardTemplateSchema.safeParse(withValue(validCardTemplate(), path, value)).success).to.equal(false));
  }

  it("is strict at every level too", () => {
    expect(cardTemplateSchema.safeParse(withValue(validCardTemplate(), ["identity", "extra"], 1)).success).to.equal(
      false,
    );
  });
});

describe("finalizeCard", () => {
  const deployed = { callUrl: "https://weather.example/call", resourceId, agentId: 7n };

  it("fills the placeholders and yields a valid card", () => {
    const card = finalizeCard(validCardTemplate(), deployed);
    expect(card).to.deep.equal(validCard());
    expect(cardSchema.safeParse(card).success).to.equal(true);
  });

  it("leaves the template untouched", () => {
    const template = validCardTemplate();
    finalizeCard(template, deployed);
    expect(template).to.deep.equal(validCardTemplate());
  });

  it("refuses a deploy value that does not validate", () => {
    expect(() => finalizeCard(validCardTemplate(), { ...deployed, resourceId: "0x1234" })).to.throw(
      SchemaValidationError,
    );
    expect(() => finalizeCard(validCardTemplate(), { ...deployed, callUrl: "{{CALL_URL}}" })).to.throw(
      SchemaValidationError,
    );
  });

  it("refuses a template with a placeholder outside its slots", () => {
    const template = withValue(validCardTemplate(), ["name"], "{{AGENT_ID}}");
    expect(() => finalizeCard(template, deployed)).to.throw(SchemaValidationError, /placeholder/);
  });
});
