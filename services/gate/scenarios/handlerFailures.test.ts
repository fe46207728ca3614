import { expect } from "chai";
import type { Hex } from "viem";
import { ROLE } from "../../../testkit/chain/localChain.ts";
import type { GateStack, TestResource } from "../../../testkit/gate/gateStack.ts";
import {
  call,
  payEscrow,
  paymentHeader,
  poorAccount,
  startGateStack,
  startTestResource,
} from "../../../testkit/gate/gateStack.ts";
import { until } from "../../../testkit/until.ts";
import type { Sandbox } from "../../host/createSandbox.ts";
import { createSandbox } from "../../host/createSandbox.ts";
import { errorBodySchema } from "../../protocol/schemas/errorBody.ts";
import { strikeKeyOf } from "../../protocol/strikeKey.ts";

const faulty = `export default {
  async fetch(request) {
    const { mode } = await request.json()
    switch (mode) {
      case 'throw': throw new Error('boom')
      case 'hang': await new Promise((resolve) => setTimeout(resolve, 30_000)); return Response.json({ echo: {} })
      case 'invalid-json': return new Response('{"echo": {', { headers: { 'content-type': 'application/json' } })
      case 'text': return new Response('hello', { headers: { 'content-type': 'text/plain' } })
      case 'schema': return Response.json({ wrong: true })
      case 'large': return Response.json({ echo: { pad: 'x'.repeat(2000) } })
      case 'status': return Response.json({ echo: {} }, { status: 500 })
      default: return Response.json({ echo: { mode } })
    }
  },
}`;

const failures: [mode: string, strikeReason: string, what: string][] = [
  ["throw", "handler_error", "throws"],
  ["hang", "handler_timeout", "times out"],
  ["invalid-json", "invalid_response", "returns invalid JSON"],
  ["text", "invalid_response", "returns something other than JSON"],
  ["schema", "response_schema", "violates the response schema"],
  ["large", "response_too_large", "exceeds maxResponseBytes"],
  ["status", "handler_error", "answers 500"],
];

describe("gate: a failing handler", function () {
  let stack: GateStack;
  let sandbox: Sandbox;
  const resources = new Map<string, TestResource>();

  before(async function () {
    stack = await startGateStack();
    sandbox = await createSandbox({ name: "faulty", source: faulty });
    for (const [mode] of [...failures, ["ok"]]) {
      resources.set(
        mode!,
        await startTestResource(stack, {
          slug: `faulty-${mode}`,
          handler: sandbox.handler,
          responseSchema: {
            type: "object",
            required: ["echo"],
            properties: { echo: { type: "object" } },
            additionalProperties: false,
          },
          maxResponseBytes: 1_000,
          handlerTimeoutMs: 1_000,
          // The creator's own sample request fails the same way: these failures are the creator's fault.
          sampleRequest: { mode },
        }),
      );
    }
  });

  after(async function () {
    await Promise.all([...resources.values()].map((r) => r.close()));
    await sandbox?.dispose();
    await stack?.close();
  });

  for (const [mode, strikeReason, what] of failures) {
    it(`${what}: 502 upstream_failed, released with strike "${strikeReason}" recorded on chain, nothing debited`, async function () {
      const resource = resources.get(mode)!;
      const before = await stack.escrowBalance();
      const payload = await payEscrow(stack, resource);
      const answer = await call(resource.callUrl, { mode }, { "X-PAYMENT": paymentHeader(payload) });
      expect(answer.status).to.equal(502);
      expect(errorBodySchema.parse(answer.body).error.code).to.equal("upstream_failed");
      expect(answer.body.error.message).to.contain(strikeReason);
      expect(answer.headers.get("payment-response")).to.equal(null);
      expect(answer.headers.get("x-payment-response")).to.equal(null);

      const idemKey = payload.authorization.nonce as Hex;
      await until(async () => ((await stack.strikeRecorded(idemKey)) ? true : undefined));
      const strikeKey = strikeKeyOf({ buyer: payload.authorization.buyer, nonce: idemKey });
      const events = await stack.chain.contracts.registry.getEvents.StrikeRecorded({ strikeKey }, { fromBlock: 0n });
      expect(events.map((e) => e.args.reason)).to.deep.equal([strikeReason]);
      expect(events[0]!.args.resourceId).to.equal(resource.resourceId);
      expect(await stack.escrowBalance()).to.equal(before);

      const again = await call(resource.callUrl, { mode }, { "X-PAYMENT": paymentHeader(payload) });
      expect(again.status).to.equal(402);
      expect(again.body.error).to.equal("nonce_used");
    });
  }

  it("releases the reservation: a buyer holding exactly the cap can pay again right after a failure", async function () {
    const buyer = poorAccount();
    await stack.chain.fundBuyer(ROLE.other, 50_000n);
    const failing = resources.get("throw")!;
    const ok = resources.get("ok")!;
    const failed = await call(
      failing.callUrl,
      { mode: "throw" },
      { "X-PAYMENT": paymentHeader(await payEscrow(stack, failing, { account: buyer })) },
    );
    expect(failed.status).to.equal(502);
    const answer = await call(
      ok.callUrl,
      { mode: "fine" },
      { "X-PAYMENT": paymentHeader(await payEscrow(stack, ok, { account: buyer })) },
    );
    expect(answer.status).to.equal(200);
    expect(answer.body).to.deep.equal({ echo: { mode: "fine" } });
  });

  it("keeps serving after a timed-out call: the sandbox still answers", async function () {
    expect(await sandbox.ready()).to.equal(true);
    expect(sandbox.restarts()).to.equal(0);
  });
});
