import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "chai";
import type { Hex } from "viem";
import { postJson } from "../../../testkit/facilitator/startFacilitator.ts";
import type { GateStack } from "../../../testkit/gate/gateStack.ts";
import { startGateStack } from "../../../testkit/gate/gateStack.ts";
import { SPINNER, WAITING_ECHO } from "../../../testkit/host/handlerSources.ts";
import { bearer, payHosted, registerSample, sampleBody, startTestHost } from "../../../testkit/host/testHost.ts";
import { sleep } from "../../../testkit/sleep.ts";
import { until } from "../../../testkit/until.ts";
import type { Host } from "../createHost.ts";

/** Broken for real: every call throws. */
const THROWS = `export default { async fetch() { throw new Error('broken for everyone') } }`;

/** Broken for real: every call, its own sample included, spins. */
const SPINS_ALWAYS = `export default { async fetch() { for (;;) {} } }`;

/**
 * Attack: a creator gets strikes recorded against another creator's resource. A failed paid call is a strike only
 * when the resource's own sample request fails too; the sample used to run in the workerd process the resource shares
 * with other creators' handlers. An attacker who owns a handler in that process pays the victim a call that fails on
 * an input of its choosing (cost: nothing, a failed call is never charged) and, while the victim's sample runs, makes
 * its own handler spin: the watchdog restarts the shard, the sample fails with "the sandbox failed" and the strike goes
 * to the victim. Three strikes halve its bond and deactivate it. The sample now runs alone in a workerd process of its
 * own, so only the victim's own code decides it; a handler that is broken for real still gets its strike.
 */
describe("attack: a neighbour in the shard makes a victim's sample fail, and the strike goes to the victim", function () {
  let stack: GateStack;
  let dataDir: string;
  let host: Host;
  const ids = new Map<string, Hex>();

  const strikesOf = async (slug: string) =>
    (await stack.chain.contracts.registry.read.getResource([ids.get(slug) as Hex])).strikes;
  const statusOf = (slug: string) => host.pool.status(host.endpoints.get(slug)!.sandbox.key);
  before(async function () {
    stack = await startGateStack();
    dataDir = await mkdtemp(join(tmpdir(), "host-neighbour-strike-"));
    host = await startTestHost(stack, {
      DATA_DIR: dataDir,
      HANDLER_TIMEOUT_MS: "5000",
      SANDBOX_SHARDS: "1",
      SANDBOX_WATCHDOG_INTERVAL_MS: "100",
      SANDBOX_HEALTH_INTERVAL_MS: "250",
      SANDBOX_STALL_MS: "1000",
    });
    for (const [slug, source, sampleRequest] of [
      ["victim", WAITING_ECHO, { waitMs: 3_000 }],
      ["spinner", SPINNER, {}],
      ["throws", THROWS, {}],
      ["spins-always", SPINS_ALWAYS, {}],
    ] as const) {
      const body = sampleBody(stack, "echo", { slug, source, sampleRequest });
      expect((await postJson(`${host.url}/deployments`, body, bearer)).status).to.equal(201);
      ids.set(slug, await registerSample(stack, "echo", slug));
    }
    expect((await payHosted(stack, host.url, "victim", { warm: 1 })).status).to.equal(200);
    expect((await payHosted(stack, host.url, "spinner", { warm: 1 })).status).to.equal(200);
    await sleep(1_000);
  });

  after(async function () {
    await host?.stop();
    await stack?.close();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it("the victim and the spinner share one workerd process", function () {
    expect(statusOf("victim").pid).to.be.a("number");
    expect(statusOf("victim").pid).to.equal(statusOf("spinner").pid);
  });

  it("a spin while the victim's sample runs: the victim's failed call strikes nothing, the buyer paid nothing", async function () {
    const balance = await stack.escrowBalance();
    const restarts = statusOf("victim").restarts;
    const refused = payHosted(stack, host.url, "victim", { refuse: true });
    // The refused call fails at once; its 3 s sample is under way when the neighbour starts spinning.
    await sleep(500);
    const spun = await payHosted(stack, host.url, "spinner", { spin: true });
    expect(spun.status, spun.text).to.equal(502);
    const answer = await refused;
    expect(answer.status, answer.text).to.equal(502);
    expect(answer.body.error.code).to.equal("upstream_failed");
    expect(statusOf("victim").restarts, "the spin restarted the victim's shard").to.be.above(restarts);
    expect(answer.body.error.message, answer.text).to.contain("the resource's own sample request passes: no strike");
    expect(await stack.escrowBalance()).to.equal(balance);
    expect(await stack.strikeQueued(answer.idemKey, ids.get("victim") as Hex)).to.equal(false);
    expect(await strikesOf("victim")).to.equal(0);
  });

  for (const [slug, what] of [
    ["throws", "a handler that throws on every call"],
    ["spins-always", "a handler whose own sample spins"],
  ] as const) {
    it(`${what} still gets its strike`, async function () {
      const answer = await payHosted(stack, host.url, slug, { any: "input" });
      expect(answer.status, answer.text).to.equal(502);
      expect(answer.body.error.message).to.contain("a strike is recorded");
      expect(await stack.strikeQueued(answer.idemKey, ids.get(slug) as Hex)).to.equal(true);
      await until(async () => ((await strikesOf(slug)) === 1 ? true : undefined), 20_000, `${slug}'s strike on chain`);
    });
  }
});
