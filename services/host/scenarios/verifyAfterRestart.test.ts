import { expect } from "chai";
import { pino } from "pino";
import { until } from "../../../testkit/until.ts";
import type { SandboxPool } from "../createSandboxPool.ts";
import { createSandboxPool } from "../createSandboxPool.ts";
import { SandboxRestartedError } from "../createShard.ts";

/** A module whose top level works for a few seconds of CPU before it exports its handler. */
const SLOW_TOP_LEVEL =
  "let x = 0; for (let i = 0; i < 1.5e9; i++) x ^= i;\nexport default { fetch() { return Response.json({ x }) } }";

/**
 * Publishing loads new code in the pool's staging shard (`verify`). A restart of that shard under the load (its
 * watchdog's, after a probe a starved machine answered late, or the process's crash) is not proof against the module:
 * it is loaded once more in the fresh process, and refused only when that load is cut short too.
 */
describe("verifying a handler whose load a restart cut short", function () {
  this.timeout(180_000);
  let pool: SandboxPool | undefined;
  afterEach(async () => {
    await pool?.close();
    pool = undefined;
  });

  const stagingShard = () => pool?.shards().find((shard) => shard.kind === "staging");

  it("loads it again in the fresh process and verifies it", async function () {
    let logged = "";
    const logger = pino({ level: "warn" }, { write: (line: string) => (logged += line) });
    pool = createSandboxPool({
      shards: 1,
      capacity: 10,
      idleUnloadMs: 60_000,
      quarantineMs: 60_000,
      // Its top level holds the process for seconds: a stall as this test's kill, not the watchdog, decides.
      watchdog: { probeTimeoutMs: 40_000 },
      logger,
    });
    const verified = pool.verify({ key: "slow", name: "slow", source: SLOW_TOP_LEVEL });
    const pid = await until(() => stagingShard()?.pid, 60_000, "the staging shard's process", 20);
    // The load has been sent when the shard's process has a pid; its top level works for seconds.
    await new Promise((resolve) => setTimeout(resolve, 500));
    process.kill(pid, "SIGKILL");
    await verified;
    expect(stagingShard()?.restarts).to.equal(1);
    expect(logged).to.match(
      /"handler":"slow","err":"the sandbox was restarted while the module loaded \(.+\)","msg":"verifying a handler again in a fresh process"/,
    );
    expect(stagingShard()?.pid).to.not.equal(pid);
  });

  it("refuses a module whose top level never finishes at its second stall, naming the restart", async function () {
    pool = createSandboxPool({
      shards: 1,
      capacity: 10,
      idleUnloadMs: 60_000,
      quarantineMs: 60_000,
      watchdog: { healthIntervalMs: 200, probeTimeoutMs: 500 },
    });
    const error = await pool
      .verify({ key: "stuck", name: "stuck", source: "for (;;) {}\nexport default { fetch() {} }" })
      .catch((e: unknown) => e);
    expect(error).to.be.instanceOf(SandboxRestartedError);
    expect((error as Error).message).to.match(/^the sandbox was restarted while the module loaded \(.+\)$/);
    expect(stagingShard()?.restarts).to.equal(2);
  });
});
