import { expect } from "chai";
import fc from "fast-check";
import type { GateStack, TestResource } from "../../../testkit/gate/gateStack.ts";
import { payEscrow, payExact, startGateStack, startTestResource } from "../../../testkit/gate/gateStack.ts";
import { sampleDeployment } from "../../host/samples/sampleDeployment.ts";
import { encodeBase64Json } from "../../protocol/base64.ts";
import { errorBodySchema } from "../../protocol/schemas/errorBody.ts";
import { quoteSchema } from "../../protocol/schemas/quote.ts";

/** Statuses a fuzzed request may get; never a 5xx (502 and 503 need a failing handler or chain). */
const ALLOWED = [200, 400, 402, 404, 405, 409, 413, 415, 422];

async function send(
  url: string,
  init: { method?: string; contentType?: string; headers?: Record<string, string>; body?: string | Uint8Array },
) {
  const headers: Record<string, string> = { ...init.headers };
  if (init.contentType !== undefined) headers["content-type"] = init.contentType;
  const response = await fetch(url, {
    method: init.method ?? "POST",
    headers,
    body: init.method === "GET" || init.method === "HEAD" ? undefined : init.body,
  });
  const text = await response.text();
  return { status: response.status, text };
}

function expectWellFormed(answer: { status: number; text: string }): string {
  expect(ALLOWED, `${answer.status}: ${answer.text.slice(0, 300)}`).to.include(answer.status);
  if (answer.status === 402) expect(quoteSchema.safeParse(JSON.parse(answer.text)).success).to.equal(true);
  else if (answer.status >= 400)
    expect(errorBodySchema.safeParse(JSON.parse(answer.text)).success, answer.text).to.equal(true);
  expect(answer.text).not.to.match(/\n\s+at /);
  return answer.status === 402 ? `402 ${JSON.parse(answer.text).error}` : String(answer.status);
}

const headerValue = fc.string({ maxLength: 200 }).filter((s) => /^[\x20-\x7e]*$/.test(s));

const anyValue = fc.oneof(
  fc.string({ maxLength: 80 }),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.bigInt({ min: 0n, max: 2n ** 300n }).map(String),
  fc.stringMatching(/^[0-9a-f]{0,140}$/).map((h) => `0x${h}`),
  fc.jsonValue({ maxDepth: 2 }),
);

describe("gate: fuzzing payment headers and bodies", function () {
  let stack: GateStack;
  let echo: TestResource;
  let strict: TestResource;
  let signed: Record<string, unknown>[];

  before(async function () {
    stack = await startGateStack();
    const stats = sampleDeployment("text-stats", { creator: stack.buyer.address, asset: "", escrow: "" });
    echo = await startTestResource(stack, { slug: "echo" });
    strict = await startTestResource(stack, {
      slug: "text-stats",
      source: stats.source,
      requestSchema: stats.requestSchema,
      sampleRequest: stats.sampleRequest,
      responseSchema: stats.responseSchema,
    });
    signed = [
      ...(await Promise.all(Array.from({ length: 4 }, () => payEscrow(stack, echo)))),
      ...(await Promise.all(Array.from({ length: 2 }, () => payExact(stack, echo)))),
    ] as unknown as Record<string, unknown>[];
  });

  after(async function () {
    await Promise.all([echo?.close(), strict?.close()]);
    await stack?.close();
  });

  it("any payment header string: never a 5xx", async function () {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(headerValue, fc.base64String({ maxLength: 400 })),
        fc.constantFrom("X-PAYMENT", "PAYMENT-SIGNATURE"),
        async (value, name) => {
          expectWellFormed(
            await send(echo.callUrl, { contentType: "application/json", headers: { [name]: value }, body: '{"a":1}' }),
          );
        },
      ),
      { numRuns: 150 },
    );
  });

  it("base64 of any JSON as the payment: never a 5xx", async function () {
    await fc.assert(
      fc.asyncProperty(fc.jsonValue({ maxDepth: 4 }), async (value) => {
        expectWellFormed(
          await send(echo.callUrl, {
            contentType: "application/json",
            headers: { "X-PAYMENT": encodeBase64Json(value) },
            body: "{}",
          }),
        );
      }),
      { numRuns: 100 },
    );
  });

  it("a signed payment with one field replaced, in either wire shape: never a 5xx", async function () {
    const fields = ["scheme", "network", "signature", "x402Version", "accepted", "authorization", "extra"];
    const authorizationFields = [
      "buyer",
      "from",
      "to",
      "value",
      "resourceId",
      "maxAmount",
      "validAfter",
      "validBefore",
      "nonce",
      "extra",
    ];
    const seen = new Set<string>();
    await fc.assert(
      fc.asyncProperty(
        fc.nat({ max: signed.length - 1 }),
        fc.constantFrom(
          ...fields.map((f) => ["top", f] as const),
          ...authorizationFields.map((f) => ["authorization", f] as const),
        ),
        anyValue,
        fc.boolean(),
        async (index, [where, field], value, envelope) => {
          const payload = structuredClone(signed[index]!);
          if (where === "top") payload[field] = value;
          else payload.authorization = { ...(payload.authorization as object), [field]: value };
          const wire = envelope
            ? {
                x402Version: 2,
                accepted: { scheme: payload.scheme, network: payload.network },
                payload: { authorization: payload.authorization, signature: payload.signature },
              }
            : payload;
          seen.add(
            expectWellFormed(
              await send(echo.callUrl, {
                contentType: "application/json",
                headers: { "PAYMENT-SIGNATURE": encodeBase64Json(wire) },
                body: '{"fuzz":true}',
              }),
            ),
          );
        },
      ),
      { numRuns: 150 },
    );
    expect([...seen], "the decoder refuses some mutations").to.include("402 invalid_payload");
    expect(
      [...seen].some((outcome) => outcome !== "402 invalid_payload"),
      `mutations reach the facilitator, not only the decoder: ${[...seen].join(", ")}`,
    ).to.equal(true);
  });

  it("any body and content type, with or without a payment: never a 5xx", async function () {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.jsonValue({ maxDepth: 5 }).map((v) => JSON.stringify(v) ?? ""),
          fc.string({ maxLength: 300 }),
          fc.uint8Array({ maxLength: 300 }),
          fc.constant("[".repeat(5_000) + "]".repeat(5_000)),
          fc.constant(`{"text":"${"a".repeat(1000)}","top":${"9".repeat(400)}}`),
        ),
        fc.constantFrom(
          "application/json",
          "application/json; charset=utf-8",
          "text/plain",
          "application/json; charset=utf-16",
          "",
          "multipart/form-data; boundary=x",
        ),
        fc.option(fc.constantFrom(...signed.slice(0, 1)), { nil: undefined }),
        fc.constantFrom(echo, strict),
        async (body, contentType, payment, resource) => {
          const headers: Record<string, string> = payment ? { "X-PAYMENT": encodeBase64Json(payment) } : {};
          expectWellFormed(await send(resource.callUrl, { contentType, headers, body }));
        },
      ),
      { numRuns: 150 },
    );
  });

  it("any method and path: never a 5xx", async function () {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom("GET", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS"),
        fc.oneof(
          fc.constantFrom("/call", "/health", "/ready", "/.well-known/agent-card.json", "/", "/call/x"),
          fc.webPath(),
        ),
        async (method, path) => {
          const answer = await send(`${echo.url}${path.startsWith("/") ? path : `/${path}`}`, {
            method,
            contentType: "application/json",
            body: "{}",
          });
          expect(answer.status).to.be.below(500);
        },
      ),
      { numRuns: 100 },
    );
  });
});
