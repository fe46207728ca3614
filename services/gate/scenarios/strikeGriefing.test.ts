import { expect } from "chai";
import type { Hex } from "viem";
import { ROLE } from "../../../testkit/chain/localChain.ts";
import type { GateStack, TestResource } from "../../../testkit/gate/gateStack.ts";
import { call, payEscrow, paymentHeader, startGateStack, startTestResource } from "../../../testkit/gate/gateStack.ts";

const BOND = 1_000_000n;

/** A handler whose running time the caller chooses: it spins the isolate's only thread for `spinMs`. */
const spinner = `export default {
  async fetch(request) {
    const { spinMs = 0 } = await request.json()
    const end = Date.now() + spinMs
    while (Date.now() < end) {}
    return Response.json({ spun: spinMs })
  },
}`;

/** A handler that recurses as deep as the caller asks: a RangeError (stack overflow) on an input of the buyer's. */
const recurser = `export default {
  async fetch(request) {
    const { depth = 1 } = await request.json()
    const down = (n) => (n <= 0 ? 0 : 1 + down(n - 1))
    return Response.json({ depth: down(depth) })
  },
}`;

/**
 * The griefing attack of issue 14: a buyer picks inputs that make an honest creator's handler fail. Before the fix
 * each such call was a strike against the creator, cost the buyer nothing (a failed call is never charged) and had
 * no per-buyer limit: three calls slashed half of the creator's bond and took the listing down. Now a failure is a
 * strike only when the creator's own declared sample request fails as well, on an idle handler.
 */
describe("a buyer cannot slash a creator's bond or delist a resource with inputs of its own choosing", function () {
  let stack: GateStack;
  const resources: TestResource[] = [];

  before(async function () {
    stack = await startGateStack();
  });

  after(async function () {
    await Promise.all(resources.map((r) => r.close()));
    await stack?.close();
  });

  async function bondedResource(options: Parameters<typeof startTestResource>[1]) {
    const resource = await startTestResource(stack, options);
    resources.push(resource);
    const { token, registry } = stack.chain.contracts;
    const account = stack.chain.wallets[ROLE.creator]?.account;
    if (!account) throw new Error("no creator wallet");
    await token.write.mint([account.address, BOND]);
    await token.write.approve([registry.address, BOND], { account });
    await registry.write.postBond([resource.resourceId, BOND], { account });
    return resource;
  }

  /** Three paid calls with the attacker's body; what each answered, and the idemKeys. */
  async function attack(resource: TestResource, body: string, expectedReason: string) {
    const before = await stack.escrowBalance();
    const idemKeys: Hex[] = [];
    for (let i = 0; i < 3; i++) {
      const payload = await payEscrow(stack, resource);
      idemKeys.push(payload.authorization.nonce as Hex);
      const answer = await call(resource.callUrl, body, { "X-PAYMENT": paymentHeader(payload) });
      expect(answer.status, answer.text.slice(0, 300)).to.equal(502);
      expect(answer.body.error.code).to.equal("upstream_failed");
      expect(answer.body.error.message).to.contain(expectedReason);
      expect(answer.body.error.message).to.contain("no strike");
    }
    expect(await stack.escrowBalance(), "the buyer paid nothing").to.equal(before);
    for (const idemKey of idemKeys) {
      // Releasing again answers the first release: whether a strike was queued for that call.
      const again = await fetch(`${stack.facilitator.url}/release`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ idemKey, resourceId: resource.resourceId }),
      });
      expect(await again.json()).to.deep.include({ released: true, strikeRecorded: false });
      expect(await stack.strikeRecorded(idemKey)).to.equal(false);
    }
    const onChain = await stack.chain.contracts.registry.read.getResource([resource.resourceId]);
    expect(onChain.bond, "the creator's bond").to.equal(BOND);
    expect(onChain.active, "the listing").to.equal(true);
    expect(onChain.strikes).to.equal(0);
  }

  it("three echo calls with a 70 KB body (response_too_large) strike nothing", async function () {
    const echo = await bondedResource({ slug: "grief-echo-large" });
    await attack(echo, JSON.stringify({ pad: "x".repeat(70_000) }), "response_too_large");
    const fine = await call(echo.callUrl, { hi: 1 }, { "X-PAYMENT": paymentHeader(await payEscrow(stack, echo)) });
    expect(fine.status).to.equal(200);
  });

  it("three calls whose input makes the handler throw a RangeError strike nothing", async function () {
    const recursing = await bondedResource({ slug: "grief-recurse", source: recurser, sampleRequest: { depth: 3 } });
    await attack(recursing, JSON.stringify({ depth: 1e9 }), "handler_error");
  });

  it("deeply nested JSON is refused before anything is reserved, and never reaches the handler", async function () {
    const echo = await bondedResource({ slug: "grief-echo-nested" });
    const depth = 200_000;
    const payload = await payEscrow(stack, echo);
    const before = await stack.escrowBalance();
    const answer = await call(echo.callUrl, `{"a":${"[".repeat(depth)}${"]".repeat(depth)}}`, {
      "X-PAYMENT": paymentHeader(payload),
    });
    expect(answer.status, answer.text.slice(0, 300)).to.equal(400);
    expect(answer.body.error.code).to.equal("invalid_request");
    expect(answer.body.error.message).to.equal("the body nests arrays and objects deeper than 512");
    expect(echo.runs(), "the handler never ran").to.equal(0);
    // Nothing was reserved: the same payment pays for a call afterwards.
    const fine = await call(echo.callUrl, { hi: 1 }, { "X-PAYMENT": paymentHeader(payload) });
    expect(fine.status, fine.text).to.equal(200);
    expect((await stack.escrowBalance()) < before, "the call was paid").to.equal(true);
  });

  it("three calls that make the handler spin past its wall-time limit (handler_timeout) strike nothing", async function () {
    const spin = await bondedResource({
      slug: "grief-spin",
      source: spinner,
      handlerTimeoutMs: 1_000,
      sampleRequest: { spinMs: 1 },
    });
    await attack(spin, JSON.stringify({ spinMs: 3_000 }), "handler_timeout");
  });
});
