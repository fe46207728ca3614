import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { expect } from "chai";
import { sleep } from "../../testkit/sleep.ts";
import { until } from "../../testkit/until.ts";
import { watchSandboxProcess } from "./watchSandboxProcess.ts";

const limits = { tickMs: 20, idleCpuMs: 500, healthIntervalMs: 50, probeTimeoutMs: 300 };

/** Holds this process's event loop for `ms`, as a long synchronous task of any part of the host would. */
function holdEventLoop(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end);
}

/**
 * The health probes of the sandbox watchdog, with no process to read (pid undefined): a sandbox that does not answer is
 * stuck; a sandbox whose answer this process could not read in time, because its own event loop was held, is not.
 * Before the fix a host that stalled for longer than the probe's timeout (one request's slow schema check, say)
 * restarted every sandbox it had, each probe's timer firing before its answer was read.
 */
describe("watchSandboxProcess", function () {
  this.timeout(30_000);
  let server: Server;
  let url: string;

  before(async function () {
    // Answers at once, or after ?after= milliseconds.
    server = createServer((req, res) => {
      const after = Number(new URL(req.url ?? "/", "http://x").searchParams.get("after") ?? 0);
      setTimeout(() => res.end("ok"), after);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });

  after(async function () {
    await new Promise((resolve) => server.close(resolve));
  });

  /** A probe over HTTP, as the shard's: true when the answer is read within `timeoutMs`. */
  const probeOverHttp = (timeoutMs: number, hold = 0, answerAfter = 0): Promise<boolean> => {
    const answered = fetch(`${url}?after=${answerAfter}`).then(
      (res) => res.ok,
      () => false,
    );
    holdEventLoop(hold);
    if (!Number.isFinite(timeoutMs)) return answered;
    return Promise.race([sleep(timeoutMs).then(() => false), answered]);
  };

  it("calls a sandbox that does not answer its probe stuck", async function () {
    let why: string | undefined;
    const watchdog = watchSandboxProcess({
      pid: undefined,
      probe: (timeoutMs) => sleep(timeoutMs).then(() => false),
      onStuck: (reason) => {
        why = reason;
      },
      limits,
    });
    try {
      await until(() => why, 10_000, "the watchdog calling the silent sandbox stuck");
      expect(why).to.equal("it did not answer its health check within 300 ms");
    } finally {
      watchdog.stop();
    }
  });

  /** Watches with `first` as the first probe and plain HTTP probes after it; why it called the sandbox stuck, if it did, by the fourth probe. */
  async function stuckBy4thProbe(first: (timeoutMs: number) => Promise<boolean>): Promise<string | undefined> {
    let why: string | undefined;
    let probes = 0;
    const watchdog = watchSandboxProcess({
      pid: undefined,
      // After the first, a healthy sandbox's probes: answered whenever the answer is read (no timeout of their own, so
      // a loaded machine's slow fetch is not taken for a silent sandbox).
      probe: (timeoutMs) => (probes++ === 0 ? first(timeoutMs) : probeOverHttp(Number.POSITIVE_INFINITY)),
      onStuck: (reason) => {
        why = reason;
      },
      limits,
    });
    try {
      await until(() => (probes >= 4 || why ? true : undefined), 10_000, "four probes");
      return why;
    } finally {
      watchdog.stop();
    }
  }

  it("does not call a sandbox stuck when this process's own event loop held its answer past the timeout", async function () {
    // The answer arrives at once but is read only after the loop was held twice the timeout.
    expect(await stuckBy4thProbe((timeoutMs) => probeOverHttp(timeoutMs, timeoutMs * 2))).to.equal(undefined);
  });

  it("nor when the loop was held from within the wait until just past its end, the answer arriving meanwhile", async function () {
    // Answered after half the timeout, while the loop is held from a third of it to a sixth past it.
    const why = await stuckBy4thProbe((timeoutMs) => {
      setTimeout(() => holdEventLoop((timeoutMs * 5) / 6), timeoutMs / 3);
      return probeOverHttp(timeoutMs, 0, timeoutMs / 2);
    });
    expect(why).to.equal(undefined);
  });
});
