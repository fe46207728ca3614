import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "chai";
import { getJson, postJson } from "../../../testkit/facilitator/startFacilitator.ts";
import type { GateStack } from "../../../testkit/gate/gateStack.ts";
import { startGateStack } from "../../../testkit/gate/gateStack.ts";
import { bearer, payHosted, registerSample, sampleBody, startTestHost } from "../../../testkit/host/testHost.ts";
import { cpuSince, readStackCpu } from "../../../testkit/stack/stackCpu.ts";
import { until } from "../../../testkit/until.ts";
import type { Host } from "../createHost.ts";
import { processCpuSeconds } from "../readProcessStat.ts";

const HANDLER_TIMEOUT_MS = 2_000;
/** Detection (a few watchdog ticks and the CPU budget) and a restart of workerd, on a busy two-core machine. */
const SLACK_MS = 5_000;

/** Answers `{ echo }`, and with `{ spin }` keeps burning CPU once the answer is on its way. */
const SPINNER = `const spin = () => { for (;;) {} }
const answered = () => {
  const body = new TextEncoder().encode(JSON.stringify({ echo: { spinning: true } }))
  const { readable, writable } = new FixedLengthStream(body.length)
  writable.getWriter().write(body)
  return new Response(readable, { headers: { 'content-type': 'application/json' } })
}
const ways = {
  waitUntil(ctx) {
    ctx.waitUntil(scheduler.wait(20).then(spin))
    return Response.json({ echo: { spinning: true } })
  },
  stream() {
    setTimeout(spin, 50)
    return answered()
  },
  slices() {
    const slice = () => {
      const until = Date.now() + 40
      while (Date.now() < until) {}
      setTimeout(slice, 10)
    }
    setTimeout(slice, 50)
    return answered()
  },
}
export default {
  async fetch(request, env, ctx) {
    const body = await request.json()
    return body.spin ? ways[body.spin](ctx) : Response.json({ echo: body })
  },
}`;

/** Computes for about 100 ms of CPU in each call, and nothing after it. */
const CRUNCHER = `export default {
  async fetch(request) {
    const until = Date.now() + 100
    let n = 0
    while (Date.now() < until) n++
    return Response.json({ echo: { n } })
  },
}`;

/**
 * The ways the spinner keeps burning CPU once its answer is on its way, each deployed as a resource of its own. The
 * call lasts until the answer's stream has ended (the shard's dispatcher passes it on as it comes), so each way is a
 * call that times out: 502, nothing debited.
 */
const ways: [string, string][] = [
  ["waitUntil", "a ctx.waitUntil busy loop: the answer waits for it"],
  ["stream", "a busy loop behind a fixed-length answer whose stream stays open: the answer never ends"],
  ["slices", "40 ms slices between timer turns behind an answer that never ends (it answers health checks)"],
];

/**
 * Attack: a creator deploys a handler that answers its call and then keeps a core busy: in `ctx.waitUntil`, past a
 * fixed-length response whose stream it never closes, or in slices between timer turns that still let the process
 * answer a health check. Without the fix the attacker buys one core of the host, for as long as it likes, with a
 * single call: workerd keeps `waitUntil` work and open responses alive with no time limit, and nothing watched what a
 * sandbox process burned after its call, so every other resource on the host was starved.
 */
describe("attack: a handler that answers and then spins starves the host", function () {
  let stack: GateStack;
  let dataDir: string;
  let host: Host;

  const restartsOf = async (slug: string): Promise<number> => {
    const list = (await getJson(`${host.url}/deployments`, bearer)).body as { slug: string; restarts: number }[];
    return list.find((d) => d.slug === slug)?.restarts ?? -1;
  };
  const keyOf = (slug: string) => host.endpoints.get(slug)!.sandbox.key;
  const pidOf = (slug: string) => host.pool.status(keyOf(slug)).pid;
  const gone = (pid: number) => {
    try {
      processCpuSeconds(pid);
      return undefined;
    } catch {
      return true;
    }
  };
  const workerdCpuOver = async (ms: number) => {
    const before = readStackCpu(process.pid);
    await new Promise((resolve) => setTimeout(resolve, ms));
    return cpuSince(before, readStackCpu(process.pid)).workerd;
  };
  const neighbourAnswers = async () => {
    const answer = await payHosted(stack, host.url, "neighbour", { still: "here" });
    expect(answer.status, answer.text).to.equal(200);
    expect(answer.body).to.deep.equal({ echo: { still: "here" } });
  };

  before(async function () {
    stack = await startGateStack();
    dataDir = await mkdtemp(join(tmpdir(), "host-spin-"));
    host = await startTestHost(stack, {
      DATA_DIR: dataDir,
      HANDLER_TIMEOUT_MS: String(HANDLER_TIMEOUT_MS),
      SANDBOX_WATCHDOG_INTERVAL_MS: "100",
      SANDBOX_IDLE_CPU_MS: "300",
      SANDBOX_HEALTH_INTERVAL_MS: "500",
      SANDBOX_STALL_MS: String(HANDLER_TIMEOUT_MS),
      // A shard of its own for each endpoint, as one process per endpoint was: spinTakesDownItsShard.test.ts has
      // the spinner share a process with its neighbours.
      SANDBOX_SHARDS: "8",
    });
    const deployments: [string, string | undefined][] = [
      ["neighbour", undefined],
      ["cruncher", CRUNCHER],
      ...ways.map(([way]): [string, string] => [`spinner-${way.toLowerCase()}`, SPINNER]),
    ];
    for (const [slug, source] of deployments) {
      const body = sampleBody(stack, "echo", source ? { slug, source, sampleRequest: {} } : { slug });
      const deployed = await postJson(`${host.url}/deployments`, body, bearer);
      expect(deployed.status, JSON.stringify(deployed.body)).to.equal(201);
      await registerSample(stack, "echo", slug);
    }
  });

  after(async function () {
    await host?.stop();
    await stack?.close();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  for (const [way, title] of ways) {
    it(`${way}: ${title}; 502, nothing debited, restarted within the time limit plus slack, the neighbour answers, CPU falls back`, async function () {
      const spinner = `spinner-${way.toLowerCase()}`;
      const restarts = await restartsOf(spinner);
      const pid = pidOf(spinner)!;
      const balance = await stack.escrowBalance();

      const answer = await payHosted(stack, host.url, spinner, { spin: way });
      expect(answer.status, answer.text).to.equal(502);
      expect(answer.body.error.code).to.equal("upstream_failed");
      expect(await stack.escrowBalance()).to.equal(balance);
      await neighbourAnswers();

      await until(
        async () => ((await restartsOf(spinner)) > restarts ? true : undefined),
        HANDLER_TIMEOUT_MS + SLACK_MS,
        "the spinner's restart",
      );
      await until(() => gone(pid), SLACK_MS, `the end of the spinning workerd process ${pid}`);
      expect(await workerdCpuOver(1_000)).to.be.below(0.3);
      await neighbourAnswers();
      const again = await payHosted(stack, host.url, spinner, { after: way });
      expect(again.status, again.text).to.equal(200);
      expect(again.body).to.deep.equal({ echo: { after: way } });
    });
  }

  it("a handler that computes hard inside its calls, back to back, is never restarted", async function () {
    const handler = host.pool.handler(host.endpoints.get("cruncher")!.sandbox);
    const until = Date.now() + 3_000;
    while (Date.now() < until) {
      const result = await handler({
        body: {},
        rawBody: Buffer.from("{}"),
        signal: AbortSignal.timeout(HANDLER_TIMEOUT_MS),
        maxResponseBytes: 1_000,
      });
      expect(result.status).to.equal(200);
    }
    expect(await restartsOf("cruncher")).to.equal(0);
    expect(await restartsOf("neighbour")).to.equal(0);
  });

  it("an idle sandbox that stops answering its health check is restarted, and serves again", async function () {
    const restarts = await restartsOf("neighbour");
    const pid = pidOf("neighbour")!;
    process.kill(pid, "SIGSTOP");
    await until(
      async () => ((await restartsOf("neighbour")) > restarts ? true : undefined),
      500 + HANDLER_TIMEOUT_MS + SLACK_MS,
      "the neighbour's restart",
    );
    await until(() => gone(pid), SLACK_MS, `the end of the stopped workerd process ${pid}`);
    await until(async () => ((await host.pool.ready(keyOf("neighbour"))) ? true : undefined), SLACK_MS, "ready again");
    await neighbourAnswers();
  });
});
