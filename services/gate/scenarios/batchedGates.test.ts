import { expect } from "chai";
import type { Hex } from "viem";
import type { GateStack, TestResource } from "../../../testkit/gate/gateStack.ts";
import { call, payEscrow, paymentHeader, startGateStack, startTestResource } from "../../../testkit/gate/gateStack.ts";
import { signCallerToken } from "../../protocol/callerToken.ts";

const secret = "g".repeat(40);

/**
 * Gates of one process share one batch link to the facilitator (createBatchLink.ts): the calls of different
 * resources travel in the same `POST /batch`, each with its own gate's caller token, and the facilitator authorizes
 * each on its own. A gate holding a bad token gets nothing for its calls, whatever batch they share.
 */
describe("gates of one process batch their facilitator calls together, each call under its own gate's token", function () {
  let stack: GateStack;
  const ids: Record<string, Hex> = {};
  const resources: Record<string, TestResource> = {};
  const tokenFor = (slug: string, key: string) => () =>
    signCallerToken({ resourceId: ids[slug] as Hex, secret: key, ttlSeconds: 60 });

  before(async function () {
    stack = await startGateStack({ facilitatorEnv: { CALLER_AUTH: "on", CALLER_AUTH_SECRET: secret } });
    for (const [slug, key] of [
      ["batch-a", secret],
      ["batch-b", secret],
      ["batch-forged", "f".repeat(40)],
    ] as const) {
      resources[slug] = await startTestResource(stack, { slug, gate: { facilitatorToken: tokenFor(slug, key) } });
      ids[slug] = resources[slug].resourceId;
    }
  });

  after(async function () {
    for (const resource of Object.values(resources)) await resource.close();
    await stack?.close();
  });

  it("pays concurrent calls of two resources through shared batches, and refuses the one with a forged token", async function () {
    const before = await stack.escrowBalance();
    const plan = ["batch-a", "batch-b", "batch-a", "batch-forged", "batch-b", "batch-a", "batch-b", "batch-forged"];
    const payments = await Promise.all(plan.map((slug) => payEscrow(stack, resources[slug] as TestResource)));
    // A verify the facilitator's escrow book is too far behind the head to answer goes on its own route, as it
    // should (createBatchLink.ts): on a loaded machine the book could still be following the resources' registration
    // blocks. Caught up first, this test sees the batches alone.
    await stack.facilitator.ctx.escrowBook.catchUpAfterNow();
    const answers = await Promise.all(
      plan.map((slug, n) =>
        call((resources[slug] as TestResource).callUrl, { n }, { "X-PAYMENT": paymentHeader(payments[n]!) }),
      ),
    );
    for (const [n, slug] of plan.entries()) {
      const answer = answers[n]!;
      if (slug === "batch-forged") {
        expect(answer.status, `${slug} #${n}: ${answer.text.slice(0, 200)}`).to.equal(503);
        expect(answer.headers.get("payment-response")).to.equal(null);
      } else {
        expect(answer.status, `${slug} #${n}: ${answer.text.slice(0, 200)}`).to.equal(200);
        expect(answer.body).to.deep.equal({ echo: { n } });
      }
    }
    expect(resources["batch-forged"]?.runs(), "the forged gate's handler never ran").to.equal(0);
    const paid = answers
      .filter((answer) => answer.status === 200)
      .map((answer) =>
        BigInt(JSON.parse(Buffer.from(answer.headers.get("payment-response")!, "base64").toString()).amount),
      )
      .reduce((sum, amount) => sum + amount, 0n);
    expect(await stack.escrowBalance(), "exactly the six paid calls were debited").to.equal(before - paid);

    const metrics = await (await fetch(`${stack.facilitator.url}/metrics`)).text();
    const requests = (route: string) =>
      [
        ...metrics.matchAll(
          new RegExp(`facilitator_http_request_duration_seconds_count\\{route="${route}"[^}]*\\} (\\d+)`, "g"),
        ),
      ]
        .map((m) => Number(m[1]))
        .reduce((a, b) => a + b, 0);
    expect(requests("/batch"), "calls went in batches").to.be.above(0);
    expect(requests("/batch"), "fewer batches than calls").to.be.below(plan.length * 2);
    expect(requests("/verify") + requests("/settle"), "no call went on its own route").to.equal(0);
  });
});
