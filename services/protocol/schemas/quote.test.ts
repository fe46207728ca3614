import { expect } from "chai";
import { asset, escrow, resourceId, withValue } from "../../../testkit/protocol/fixtures.ts";
import { SchemaValidationError } from "../errors.ts";
import { buildDiscoveryExtension, MAX_DISCOVERY_BYTES } from "./discoveryExtension.ts";
import type { BuildQuoteParameters } from "./quote.ts";
import { buildQuote, quoteSchema } from "./quote.ts";

const parameters: BuildQuoteParameters = {
  cap: 50_000n,
  asset: asset.toLowerCase(),
  escrow: escrow.toLowerCase(),
  resourceId,
  pricing: {
    model: "metered",
    base: "1000",
    perKB: "200",
    computeMultiplier: 1,
    maxResponseBytes: 65_536,
    errorPrice: "0",
  },
  resource: { url: "https://weather.example/call", description: "Current weather for a city." },
  includeExact: true,
};

describe("buildQuote", () => {
  const quote = buildQuote(parameters);

  it("emits x402Version, error, accepts and resource in that order", () => {
    expect(Object.keys(quote)).to.deep.equal(["x402Version", "error", "accepts", "resource"]);
    expect(JSON.stringify(quote)).to.match(
      /^\{"x402Version":2,"error":"payment_required","accepts":\[\{"scheme":"service-escrow"/,
    );
  });

  it("emits the escrow entry in PROTOCOL.md order with the cap and the domain to sign under", () => {
    const [entry] = quote.accepts;
    expect(Object.keys(entry)).to.deep.equal([
      "scheme",
      "network",
      "maxAmountRequired",
      "amount",
      "asset",
      "escrow",
      "payTo",
      "maxTimeoutSeconds",
      "pricing",
      "eip712Domain",
    ]);
    expect(entry).to.deep.include({
      maxAmountRequired: "50000",
      amount: "50000",
      asset,
      escrow,
      payTo: resourceId,
      maxTimeoutSeconds: 60,
    });
    expect(entry.eip712Domain).to.deep.equal({
      name: "ServiceEscrow",
      version: "1",
      chainId: 5042002,
      verifyingContract: escrow,
    });
  });

  it("pays the exact entry to the escrow, bound to the resource id", () => {
    expect(quote.accepts[1]).to.deep.equal({
      scheme: "exact",
      network: "eip155:5042002",
      maxAmountRequired: "50000",
      amount: "50000",
      asset,
      payTo: escrow,
      maxTimeoutSeconds: 60,
      extra: { name: "USDC", version: "2", resourceId },
    });
  });

  it("raises the exact entry above the cap when asked, never below it, and leaves the escrow entry at the cap", () => {
    const raised = buildQuote({ ...parameters, exactAmount: 103_200n });
    expect(raised.accepts[1]).to.deep.include({ maxAmountRequired: "103200", amount: "103200" });
    expect(raised.accepts[0]).to.deep.include({ maxAmountRequired: "50000", amount: "50000" });
    expect(quoteSchema.safeParse(JSON.parse(JSON.stringify(raised))).success).to.equal(true);
    expect(() => buildQuote({ ...parameters, exactAmount: 49_999n })).to.throw(
      SchemaValidationError,
      /maxAmountRequired/,
    );
  });

  it("asks for an authorization window as the escrow entry's last key, extra.authorizationSeconds", () => {
    const asking = buildQuote({ ...parameters, authorizationSeconds: 3_600 });
    expect(Object.keys(asking.accepts[0]).at(-1)).to.equal("extra");
    expect(asking.accepts[0].extra).to.deep.equal({ authorizationSeconds: 3_600 });
    expect(quoteSchema.parse(JSON.parse(JSON.stringify(asking))).accepts[0].extra).to.deep.equal({
      authorizationSeconds: 3_600,
    });
  });

  it("parses an older gate's quote, whose escrow entry has no extra", () => {
    expect(quote.accepts[0]).to.not.have.property("extra");
    expect(quoteSchema.safeParse(JSON.parse(JSON.stringify(quote))).success).to.equal(true);
  });

  it("refuses an authorizationSeconds that is not a positive integer, or an extra of another shape", () => {
    const wire = JSON.parse(JSON.stringify(buildQuote({ ...parameters, authorizationSeconds: 3_600 })));
    for (const extra of [
      { authorizationSeconds: -1 },
      { authorizationSeconds: 0 },
      { authorizationSeconds: 1.5 },
      { authorizationSeconds: "3600" },
      { authorizationSeconds: 1e300 },
      { authorizationSeconds: 3_600, validAfter: 0 },
    ]) {
      wire.accepts[0].extra = extra;
      expect(quoteSchema.safeParse(wire).success, JSON.stringify(extra)).to.equal(false);
    }
  });

  it("defaults the mime type and leaves out the exact entry unless asked", () => {
    const bare = buildQuote({ ...parameters, includeExact: false, error: "nonce_used", maxTimeoutSeconds: 120 });
    expect(bare.accepts).to.have.length(1);
    expect(bare.error).to.equal("nonce_used");
    expect(bare.accepts[0].maxTimeoutSeconds).to.equal(120);
    expect(bare.resource.mimeType).to.equal("application/json");
  });

  it("refuses parameters that do not make a valid quote", () => {
    expect(() => buildQuote({ ...parameters, cap: "050000" })).to.throw(SchemaValidationError);
    expect(() => buildQuote({ ...parameters, pricing: { ...parameters.pricing, computeMultiplier: -1 } })).to.throw(
      SchemaValidationError,
    );
    expect(() => buildQuote({ ...parameters, maxTimeoutSeconds: 0 })).to.throw(SchemaValidationError);
  });
});

describe("buildQuote with the discovery extension", () => {
  const discovery = buildDiscoveryExtension({
    requestSchema: { type: "object", required: ["city"], properties: { city: { type: "string" } } },
    responseSchema: { type: "object", required: ["celsius"], properties: { celsius: { type: "number" } } },
    requestExample: { city: "Oslo" },
  });

  it("puts extensions.bazaar last, after the keys PROTOCOL.md orders, and leaves accepts as they were", () => {
    const quote = buildQuote({ ...parameters, discovery });
    expect(Object.keys(quote)).to.deep.equal(["x402Version", "error", "accepts", "resource", "extensions"]);
    expect(quote.extensions).to.deep.equal({ bazaar: discovery });
    expect(quote.accepts).to.deep.equal(buildQuote(parameters).accepts);
    expect(quoteSchema.safeParse(JSON.parse(JSON.stringify(quote))).success).to.equal(true);
  });

  it(`refuses an extension over ${MAX_DISCOVERY_BYTES} bytes`, () => {
    const description = "x".repeat(MAX_DISCOVERY_BYTES);
    const large = buildDiscoveryExtension({
      requestSchema: { type: "object", description },
      responseSchema: true,
      requestExample: {},
    });
    expect(() => buildQuote({ ...parameters, discovery: large })).to.throw(SchemaValidationError);
  });
});

describe("quoteSchema", () => {
  const quote = JSON.parse(
    JSON.stringify(
      buildQuote({
        ...parameters,
        discovery: buildDiscoveryExtension({ requestSchema: true, responseSchema: true, requestExample: {} }),
      }),
    ),
  ) as unknown;

  it("accepts a built quote", () => expect(quoteSchema.safeParse(quote).success).to.equal(true));

  for (const path of [
    [],
    ["accepts", 0],
    ["accepts", 0, "pricing"],
    ["accepts", 0, "eip712Domain"],
    ["accepts", 1],
    ["accepts", 1, "extra"],
    ["resource"],
    ["extensions"],
  ]) {
    it(`rejects an extra property at ${path.join(".") || "the top level"}`, () => {
      expect(quoteSchema.safeParse(withValue(quote, [...path, "extra"], 1)).success).to.equal(false);
    });
  }

  const invalid: [string, (string | number)[], unknown][] = [
    ["x402Version 1", ["x402Version"], 1],
    ["an unknown error", ["error"], "nope"],
    ["an amount different from the cap", ["accepts", 0, "amount"], "49999"],
    ["a cap with a leading zero", ["accepts", 0, "maxAmountRequired"], "050000"],
    ["a domain for another contract", ["accepts", 0, "eip712Domain", "verifyingContract"], asset],
    ["a domain on another chain", ["accepts", 0, "eip712Domain", "chainId"], 1],
    ["a numeric pricing amount", ["accepts", 0, "pricing", "base"], 1000],
    ["a zero maxResponseBytes", ["accepts", 0, "pricing", "maxResponseBytes"], 0],
    ["an exact entry for another asset", ["accepts", 1, "asset"], escrow],
    ["an exact entry paid elsewhere", ["accepts", 1, "payTo"], asset],
    ["an exact entry for another resource", ["accepts", 1, "extra", "resourceId"], `0x${"00".repeat(32)}`],
    ["a third entry", ["accepts", 2], { scheme: "exact" }],
    ["no entries", ["accepts"], []],
    ["another extension", ["extensions", "other"], {}],
    ["a discovery extension of another shape", ["extensions", "bazaar", "info"], {}],
  ];
  for (const [name, path, value] of invalid) {
    it(`rejects ${name}`, () => expect(quoteSchema.safeParse(withValue(quote, path, value)).success).to.equal(false));
  }

  it("rejects the exact entry first", () => {
    const swapped = withValue(quote, ["accepts"], [...(quote as { accepts: unknown[] }).accepts].reverse());
    expect(quoteSchema.safeParse(swapped).success).to.equal(false);
  });

  it("does not throw on a badly broken quote", () => {
    for (const value of [null, {}, { accepts: "x" }, withValue(quote, ["accepts", 0, "eip712Domain"], null)]) {
      expect(quoteSchema.safeParse(value).success).to.equal(false);
    }
  });
});
