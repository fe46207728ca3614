import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "chai";
import { postJson } from "../../../testkit/facilitator/startFacilitator.ts";
import type { GateStack } from "../../../testkit/gate/gateStack.ts";
import { startGateStack } from "../../../testkit/gate/gateStack.ts";
import { bearer, sampleBody, startTestHost } from "../../../testkit/host/testHost.ts";
import type { Host } from "../createHost.ts";

/**
 * A request schema whose pattern backtracks, and a card example it takes minutes to check: the host checks card
 * examples on its own loop when it builds a gate's quote, at the first request after a start, which anyone may send.
 */
describe("attack: a card example a slow schema takes minutes to check, deployed to stall the host later", function () {
  this.timeout(300_000);
  let stack: GateStack;
  let dataDir: string;
  let host: Host;

  before(async function () {
    stack = await startGateStack({ strikeThreshold: 1_000 });
    dataDir = await mkdtemp(join(tmpdir(), "host-slow-example-"));
    host = await startTestHost(stack, { DATA_DIR: dataDir });
  });

  after(async function () {
    await host?.stop();
    await stack?.close();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  const requestSchema = {
    type: "object",
    properties: { text: { type: "string", pattern: "^(a|a)+$" } },
    required: ["text"],
  };

  function bodyWithExample(slug: string, text: string) {
    const body = sampleBody(stack, "echo", { slug, requestSchema, sampleRequest: { text: "aaa" } });
    const example = JSON.stringify({ request: { text }, response: { echo: { text } } });
    const card = body.card as typeof body.card & { skills: Record<string, unknown>[] };
    const skills = card.skills.map((skill) => ({ ...skill, examples: [example] }));
    return { ...body, card: { ...body.card, skills } };
  }

  it("is refused at deploy, naming the example; an example the schema checks at once is deployed", async function () {
    // Before, the deploy was taken (201), and the first unauthenticated card or quote request after every start held
    // the host's loop for the whole check: every gate, the health check and the admin API with it.
    const refused = await postJson(`${host.url}/deployments`, bodyWithExample("stall", `${"a".repeat(40)}!`), bearer);
    expect(refused.status, JSON.stringify(refused.body)).to.equal(400);
    expect(refused.body.error.code).to.equal("invalid_request");
    expect(refused.body.error.message).to.match(/^card example 1's request: the value took longer than 1000 ms/);
    expect(host.endpoints.has("stall")).to.equal(false);
    const slowSample = { ...bodyWithExample("stall", "aaaa"), sampleRequest: { text: `${"a".repeat(40)}!` } };
    const sample = await postJson(`${host.url}/deployments`, slowSample, bearer);
    expect(sample.status, JSON.stringify(sample.body)).to.equal(400);
    expect(sample.body.error.message).to.match(/^sampleRequest: the value took longer than 1000 ms/);
    const taken = await postJson(`${host.url}/deployments`, bodyWithExample("quick", "aaaa"), bearer);
    expect(taken.status, JSON.stringify(taken.body)).to.equal(201);
  });
});
