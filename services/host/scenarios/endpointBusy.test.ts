import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "chai";
import type { Hex } from "viem";
import { getJson, postJson } from "../../../testkit/facilitator/startFacilitator.ts";
import type { GateStack } from "../../../testkit/gate/gateStack.ts";
import { call, payEscrow, paymentHeader, startGateStack } from "../../../testkit/gate/gateStack.ts";
import { bearer, payHosted, registerSample, sampleBody, startTestHost } from "../../../testkit/host/testHost.ts";
import { until } from "../../../testkit/until.ts";
import { decodeBase64Json } from "../../protocol/base64.ts";
import { receiptSchema } from "../../protocol/schemas/receipt.ts";
import type { Host } from "../createHost.ts";

/** Echoes after 1.5 s: calls pile up. */
const SLOW = `export default {
  async fetch(request) {
    const body = await request.json()
    await scheduler.wait(1500)
    return Response.json({ echo: body })
  },
}`;

/**
 * Attack: a buyer (or a crowd of them) floods one endpoint with paid calls. Without a bound each call takes a
 * reservation at the facilitator and a place in the endpoint's shard, so one popular (or slow) endpoint holds every
 * facilitator connection and the thread its neighbours share. With `ENDPOINT_MAX_CONCURRENT_CALLS` the excess is
 * answered 503 `endpoint_busy` with `Retry-After` before anything is reserved: never a debit, and the same payment
 * goes through once there is room.
 */
describe("attack: one popular endpoint takes every slot of the host", function () {
  let stack: GateStack;
  let dataDir: string;
  let host: Host;

  before(async function () {
    stack = await startGateStack();
    dataDir = await mkdtemp(join(tmpdir(), "host-busy-"));
    host = await startTestHost(stack, { DATA_DIR: dataDir, ENDPOINT_MAX_CONCURRENT_CALLS: "2" });
    for (const [slug, source] of [
      ["popular", SLOW],
      ["neighbour", undefined],
    ] as const) {
      const body = sampleBody(stack, "echo", source ? { slug, source } : { slug });
      expect((await postJson(`${host.url}/deployments`, body, bearer)).status).to.equal(201);
      await registerSample(stack, "echo", slug);
    }
  });

  after(async function () {
    await host?.stop();
    await stack?.close();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it("past the bound: 503 endpoint_busy with Retry-After, nothing reserved or debited; the same payment goes through later; the neighbour is not held up", async function () {
    const card = (await getJson(`${host.url}/r/popular/.well-known/agent-card.json`)).body;
    const resource = { resourceId: card.x402.payTo as Hex, cap: BigInt(card.x402.pricing.max) };
    const headers = await Promise.all([0, 1, 2].map(async () => paymentHeader(await payEscrow(stack, resource))));
    const balance = await stack.escrowBalance();

    const first = [0, 1].map((i) => call(card.url, { i }, { "X-PAYMENT": headers[i] as string }));
    await new Promise((resolve) => setTimeout(resolve, 500));
    const refused = await call(card.url, { i: 2 }, { "X-PAYMENT": headers[2] as string });
    expect(refused.status, refused.text).to.equal(503);
    expect(refused.body.error.code).to.equal("endpoint_busy");
    expect(refused.headers.get("retry-after")).to.equal("1");

    const neighbour = await payHosted(stack, host.url, "neighbour", { meanwhile: true });
    expect(neighbour.status, neighbour.text).to.equal(200);

    const answered = await Promise.all(first);
    for (const answer of answered) expect(answer.status, answer.text).to.equal(200);
    const again = await call(card.url, { i: 2 }, { "X-PAYMENT": headers[2] as string });
    expect(again.status, again.text).to.equal(200);
    expect(again.body).to.deep.equal({ echo: { i: 2 } });

    const debited = [...answered, again, neighbour].reduce(
      (sum, answer) =>
        sum + BigInt(receiptSchema.parse(decodeBase64Json(answer.headers.get("payment-response")!)).amount),
      0n,
    );
    await until(
      async () => ((await stack.escrowBalance()) === balance - debited ? true : undefined),
      10_000,
      "exactly the four receipts debited",
    );
  });
});
