import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "chai";
import { postJson } from "../../../testkit/facilitator/startFacilitator.ts";
import type { GateStack } from "../../../testkit/gate/gateStack.ts";
import { startGateStack } from "../../../testkit/gate/gateStack.ts";
import { bearer, payHosted, registerSample, sampleBody, startTestHost } from "../../../testkit/host/testHost.ts";
import { until } from "../../../testkit/until.ts";
import { decodeBase64Json } from "../../protocol/base64.ts";
import { receiptSchema } from "../../protocol/schemas/receipt.ts";
import type { Host } from "../createHost.ts";

const IDLE_UNLOAD_MS = 1_000;

describe("host: an endpoint nobody calls is unloaded, and loads again on its next call", function () {
  let stack: GateStack;
  let dataDir: string;
  let host: Host;

  const statusOf = (slug: string) => host.pool.status(host.endpoints.get(slug)!.sandbox.key);
  const unloaded = (slug: string) =>
    until(() => (statusOf(slug).loaded ? undefined : true), IDLE_UNLOAD_MS + 10_000, `${slug} unloaded`);
  const deploy = async (slug: string, source?: string) => {
    const body = sampleBody(stack, "echo", source ? { slug, source } : { slug });
    const answer = await postJson(`${host.url}/deployments`, body, bearer);
    expect(answer.status, JSON.stringify(answer.body)).to.equal(201);
    await registerSample(stack, "echo", slug);
  };

  before(async function () {
    stack = await startGateStack({ strikeThreshold: 1_000 });
    dataDir = await mkdtemp(join(tmpdir(), "host-cold-"));
    host = await startTestHost(stack, { DATA_DIR: dataDir, SANDBOX_IDLE_UNLOAD_MS: String(IDLE_UNLOAD_MS) });
  });

  after(async function () {
    await host?.stop();
    await stack?.close();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it("a deployment is loaded at once, and unloaded once idle", async function () {
    await deploy("cold");
    await until(() => (statusOf("cold").loaded ? true : undefined), 10_000, "cold loaded after its deploy");
    await unloaded("cold");
    const shard = host.pool.shards().find((s) => s.name === statusOf("cold").shard);
    expect(shard?.loaded ?? 0).to.equal(0);
  });

  it("its quote needs no sandbox: 402 with the quote, and it stays unloaded", async function () {
    const quote = await postJson(`${host.url}/r/cold/call`, { hello: "quote" });
    expect(quote.status).to.equal(402);
    expect(quote.body.error).to.equal("payment_required");
    expect(quote.body.accepts[0].payTo).to.equal(host.endpoints.get("cold")!.deployment.resourceId);
    expect(statusOf("cold").loaded).to.equal(false);
  });

  it("its first paid call after the unload loads it, answers, and is debited exactly its receipt", async function () {
    const balance = await stack.escrowBalance();
    const answer = await payHosted(stack, host.url, "cold", { hello: "again" });
    expect(answer.status, answer.text).to.equal(200);
    expect(answer.body).to.deep.equal({ echo: { hello: "again" } });
    const receipt = receiptSchema.parse(decodeBase64Json(answer.headers.get("payment-response")!));
    await until(
      async () => ((await stack.escrowBalance()) === balance - BigInt(receipt.amount) ? true : undefined),
      10_000,
      "exactly the receipt's amount debited",
    );
    expect(statusOf("cold").loaded).to.equal(true);
  });

  it("a reload that fails is a failed call: 502, nothing debited", async function () {
    const cutoff = Date.now() + 1_500;
    await deploy(
      "fragile",
      `if (Date.now() > ${cutoff}) throw new Error('this module no longer loads')
export default { async fetch(request) { return Response.json({ echo: await request.json() }) } }`,
    );
    await unloaded("fragile");
    await until(() => (Date.now() > cutoff ? true : undefined), 5_000, "the cutoff");
    const balance = await stack.escrowBalance();
    const answer = await payHosted(stack, host.url, "fragile", { hello: "again" });
    expect(answer.status, answer.text).to.equal(502);
    expect(answer.body.error.code).to.equal("upstream_failed");
    expect(answer.body.error.message).to.contain("no longer loads");
    expect(await stack.escrowBalance()).to.equal(balance);
  });
});
