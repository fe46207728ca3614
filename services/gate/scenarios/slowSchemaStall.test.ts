import { expect } from "chai";
import type { GateStack, TestResource } from "../../../testkit/gate/gateStack.ts";
import { call, payEscrow, paymentHeader, startGateStack, startTestResource } from "../../../testkit/gate/gateStack.ts";
import { mayCheckSlowly } from "../schemaCheck.ts";
import { SCHEMA_CHECK_TIMEOUT_MS } from "../slowSchemaChecks.ts";

/**
 * An unpaid request must not stall the process that serves every resource. The gate checks a body against the
 * creator's request schema before any payment, and a regular expression can backtrack for hours on a crafted string
 * (`^(a|a)*$` passes the shape guard of compileSchema) or `uniqueItems` compare every pair of a long array. Before the
 * fix that check ran on the event loop: one such request froze every gate, the health checks and the admin API of
 * the host (for the string below, 2^40 steps: the test never ended). Now a schema with such a keyword is checked in a
 * worker thread under a deadline, and the process keeps answering meanwhile.
 */
describe("a crafted body cannot stall the process through the request schema", function () {
  this.timeout(120_000);
  let stack: GateStack;
  let slow: TestResource;
  let echo: TestResource;

  before(async function () {
    stack = await startGateStack();
    slow = await startTestResource(stack, {
      slug: "slow-schema",
      requestSchema: {
        type: "object",
        properties: { t: { type: "string", pattern: "^(a|a)*$" }, list: { type: "array", uniqueItems: true } },
      },
    });
    echo = await startTestResource(stack, { slug: "beside-slow-schema" });
  });

  after(async function () {
    await slow?.close();
    await echo?.close();
    await stack?.close();
  });

  it("tells the schemas whose check may be slow", function () {
    expect(mayCheckSlowly({ type: "object", properties: { t: { type: "string", pattern: "^a$" } } })).to.equal(true);
    expect(mayCheckSlowly({ patternProperties: { "^x": {} } })).to.equal(true);
    expect(mayCheckSlowly({ anyOf: [{ type: "array", uniqueItems: true }] })).to.equal(true);
    expect(mayCheckSlowly({ type: "array", uniqueItems: false })).to.equal(false);
    expect(
      mayCheckSlowly({ type: "object", properties: { pattern: { type: "string" } } }),
      "a property named so",
    ).to.equal(false);
    expect(mayCheckSlowly({ type: "object", required: ["a"] })).to.equal(false);
  });

  it("answers a backtracking string 400 after the deadline, while the process serves other calls", async function () {
    const crafted = call(slow.callUrl, { t: `${"a".repeat(40)}!` });
    // Served while the crafted check runs: a quote from another gate of the process, and one from the same gate.
    const [beside, same] = await Promise.all([call(echo.callUrl, { a: 1 }), call(slow.callUrl, { t: "aaa" })]);
    expect(beside.status, beside.text).to.equal(402);
    expect(same.status, same.text).to.equal(402);
    const answer = await crafted;
    expect(answer.status, answer.text).to.equal(400);
    expect(answer.body.error.code).to.equal("invalid_request");
    expect(answer.body.error.message).to.include(`took longer than ${SCHEMA_CHECK_TIMEOUT_MS} ms`);
  });

  it("checks every body of the slow schema after a stopped check: valid ones go on to the quote, others are named", async function () {
    const valid = await call(slow.callUrl, { t: "aaaa", list: [1, 2, 3] });
    expect(valid.status, valid.text).to.equal(402);
    const repeated = await call(slow.callUrl, { list: [[1], [1]] });
    expect(repeated.status).to.equal(400);
    expect(repeated.body.error.message).to.match(/must NOT have duplicate items/);
    const mismatched = await call(slow.callUrl, { t: "b" });
    expect(mismatched.status).to.equal(400);
    expect(mismatched.body.error.message).to.include('/t must match pattern "^(a|a)*$"');
  });

  it("pays for a call of the slow schema as for any other", async function () {
    const answer = await call(
      slow.callUrl,
      { t: "aa", list: ["x", "y"] },
      { "X-PAYMENT": paymentHeader(await payEscrow(stack, slow)) },
    );
    expect(answer.status, answer.text).to.equal(200);
    expect(answer.body).to.deep.equal({ echo: { t: "aa", list: ["x", "y"] } });
  });
});
