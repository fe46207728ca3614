import { Ajv2020 } from "ajv/dist/2020.js";
import { expect } from "chai";
import { withValue } from "../../../testkit/protocol/fixtures.ts";
import { SchemaValidationError } from "../errors.ts";
import type { BuildDiscoveryExtensionParameters } from "./discoveryExtension.ts";
import { buildDiscoveryExtension, discoveryExtensionSchema } from "./discoveryExtension.ts";

const parameters: BuildDiscoveryExtensionParameters = {
  requestSchema: {
    type: "object",
    required: ["text"],
    additionalProperties: false,
    properties: { text: { type: "string", maxLength: 100 } },
  },
  responseSchema: {
    type: "object",
    required: ["palindrome"],
    additionalProperties: false,
    properties: { palindrome: { type: "boolean" } },
  },
  requestExample: { text: "level" },
  responseExample: { palindrome: true },
};

/** What the x402 reference facilitator does before cataloging: validate `info` against `schema` with ajv's 2020-12 build. */
function facilitatorAccepts(extension: { info: unknown; schema: unknown }): boolean {
  const validate = new Ajv2020({ strict: false, allErrors: true }).compile(extension.schema as object);
  return validate(extension.info) === true;
}

describe("buildDiscoveryExtension", () => {
  const extension = buildDiscoveryExtension(parameters);

  it("shapes a POST JSON endpoint as the x402 Bazaar extension does, with the example call in info", () => {
    expect(extension.info).to.deep.equal({
      input: { type: "http", method: "POST", bodyType: "json", body: { text: "level" } },
      output: { type: "json", example: { palindrome: true } },
    });
    expect(extension.schema.$schema).to.equal("https://json-schema.org/draft/2020-12/schema");
    expect(extension.schema.required).to.deep.equal(["input"]);
    expect(extension.schema.properties.input.required).to.deep.equal(["type", "method", "bodyType", "body"]);
  });

  it("publishes the request schema as the body's schema and the response schema as the output example's", () => {
    expect(extension.schema.properties.input.properties.body).to.deep.equal(parameters.requestSchema);
    expect(extension.schema.properties.output.properties.example).to.deep.equal(parameters.responseSchema);
  });

  it("validates, as a facilitator checks it, only while the examples pass the resource's schemas", () => {
    expect(facilitatorAccepts(extension)).to.equal(true);
    expect(facilitatorAccepts(buildDiscoveryExtension({ ...parameters, requestExample: { text: 7 } }))).to.equal(false);
    expect(
      facilitatorAccepts(buildDiscoveryExtension({ ...parameters, responseExample: { palindrome: "yes" } })),
    ).to.equal(false);
  });

  it("leaves the example response out when there is none, and accepts boolean schemas", () => {
    const bare = buildDiscoveryExtension({ ...parameters, responseExample: undefined, responseSchema: true });
    expect(bare.info.output).to.deep.equal({ type: "json" });
    expect(bare.schema.properties.output.properties.example).to.equal(true);
    expect(facilitatorAccepts(bare)).to.equal(true);
  });

  it("refuses a request example that is not an object", () => {
    expect(() =>
      buildDiscoveryExtension({ ...parameters, requestExample: [] as unknown as Record<string, unknown> }),
    ).to.throw(SchemaValidationError);
  });
});

describe("discoveryExtensionSchema", () => {
  const extension = JSON.parse(JSON.stringify(buildDiscoveryExtension(parameters))) as unknown;

  for (const path of [
    [],
    ["info"],
    ["info", "input"],
    ["info", "output"],
    ["schema"],
    ["schema", "properties"],
    ["schema", "properties", "input"],
    ["schema", "properties", "input", "properties"],
    ["schema", "properties", "output"],
    ["schema", "properties", "output", "properties"],
  ]) {
    it(`rejects an extra property at ${path.join(".") || "the top level"}`, () => {
      expect(discoveryExtensionSchema.safeParse(extension).success).to.equal(true);
      expect(discoveryExtensionSchema.safeParse(withValue(extension, [...path, "extra"], 1)).success).to.equal(false);
    });
  }

  const invalid: [string, (string | number)[], unknown][] = [
    ["another method", ["info", "input", "method"], "GET"],
    ["another body type", ["info", "input", "bodyType"], "text"],
    ["a string body", ["info", "input", "body"], "{}"],
    ["another dialect", ["schema", "$schema"], "http://json-schema.org/draft-07/schema#"],
    ["a schema that is a number", ["schema", "properties", "input", "properties", "body"], 1],
    ["an optional body", ["schema", "properties", "input", "required"], ["type", "method", "bodyType"]],
  ];
  for (const [name, path, value] of invalid) {
    it(`rejects ${name}`, () =>
      expect(discoveryExtensionSchema.safeParse(withValue(extension, path, value)).success).to.equal(false));
  }
});
