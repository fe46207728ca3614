import { expect } from "chai";
import type { HandlerCall } from "../gate/handler.ts";
import type { SoloRunner } from "./createSoloRunner.ts";
import { createSoloRunner } from "./createSoloRunner.ts";

/** Counts the calls its isolate served; `wait` delays the answer, `spin` holds the thread forever. */
const COUNTER = `let served = 0
export default {
  async fetch(request) {
    const { wait = 0, spin = false } = await request.json()
    if (spin) for (;;) {}
    if (wait) await scheduler.wait(wait)
    return Response.json({ served: ++served, at: Date.now() })
  },
}`;

const handler = { source: COUNTER };

const callOf = (body: Record<string, unknown>, timeoutMs = 10_000): HandlerCall => ({
  body,
  rawBody: Buffer.from(JSON.stringify(body)),
  signal: AbortSignal.timeout(timeoutMs),
  maxResponseBytes: 65_536,
});

const forever = () => new AbortController().signal;

describe("createSoloRunner", function () {
  let solo: SoloRunner;

  beforeEach(function () {
    solo = createSoloRunner({ watchdog: { tickMs: 100, healthIntervalMs: 250, probeTimeoutMs: 1_000 } });
  });

  afterEach(async function () {
    await solo.close();
  });

  it("runs each job in a fresh isolate, one job at a time, in order of arrival", async function () {
    const order: string[] = [];
    const job = (name: string, wait: number) =>
      solo.alone(
        handler,
        async (run) => {
          order.push(`${name} starts`);
          const result = await run(callOf({ wait }));
          order.push(`${name} ends`);
          return JSON.parse(result.body.toString()) as { served: number };
        },
        forever(),
      );
    const [first, second] = await Promise.all([job("first", 300), job("second", 0)]);
    expect(order).to.deep.equal(["first starts", "first ends", "second starts", "second ends"]);
    expect(first?.served, "a fresh isolate").to.equal(1);
    expect(second?.served, "a fresh isolate").to.equal(1);
  });

  it("keeps its process after a job that answered, and leaves it after one that timed out in a spin", async function () {
    const pidOf = () => solo.status()?.pid;
    await solo.alone(handler, (run) => run(callOf({})), forever());
    const pid = pidOf();
    expect(pid).to.be.a("number");
    await solo.alone(handler, (run) => run(callOf({})), forever());
    expect(pidOf(), "a clean job keeps the process").to.equal(pid);
    const spun = await solo.alone(
      handler,
      (run) => run(callOf({ spin: true }, 500)).then(() => "answered", String),
      forever(),
    );
    expect(spun).to.match(/did not answer in time|sandbox failed/);
    const after = await solo.alone(handler, (run) => run(callOf({})), forever());
    expect(after?.status, "the next job runs in a fresh process").to.equal(200);
    expect(pidOf()).to.be.a("number").and.not.equal(pid);
  });

  it("answers undefined, running nothing, when its turn does not come before `until` aborts", async function () {
    const long = solo.alone(handler, (run) => run(callOf({ wait: 1_000 })), forever());
    let ran = false;
    const late = await solo.alone(
      handler,
      async (run) => {
        ran = true;
        return run(callOf({}));
      },
      AbortSignal.timeout(200),
    );
    expect(late).to.equal(undefined);
    expect(ran).to.equal(false);
    expect((await long)?.status).to.equal(200);
  });
});
