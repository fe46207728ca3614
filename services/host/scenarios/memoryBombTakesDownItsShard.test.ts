import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "chai";
import type { Hex } from "viem";
import { postJson } from "../../../testkit/facilitator/startFacilitator.ts";
import type { GateStack } from "../../../testkit/gate/gateStack.ts";
import { startGateStack } from "../../../testkit/gate/gateStack.ts";
import { WAITING_ECHO } from "../../../testkit/host/handlerSources.ts";
import { bearer, payHosted, registerSample, sampleBody, startTestHost } from "../../../testkit/host/testHost.ts";
import { sleep } from "../../../testkit/sleep.ts";
import { until } from "../../../testkit/until.ts";
import { decodeBase64Json } from "../../protocol/base64.ts";
import { receiptSchema } from "../../protocol/schemas/receipt.ts";
import type { Host } from "../createHost.ts";

/** How long the neighbour's slow call waits: it is under way in its sandbox when the bomb goes off. */
const SLOW_MS = 3_000;

/**
 * With `{ bomb: true }` it keeps 1 MB ArrayBuffers, written to, and smaller ones whenever one is refused, then plain
 * objects: memory runs out for the process, whichever allocation is refused first. Otherwise it echoes.
 */
const BOMBER = `export default {
  async fetch(request) {
    const body = await request.json()
    if (body.bomb) {
      const hoard = []
      for (let size = 1024 * 1024; size >= 1024; ) {
        try {
          hoard.push(new Uint8Array(size).fill(hoard.length & 255))
        } catch {
          size /= 2
        }
      }
      for (;;) hoard.push({ more: hoard.length })
    }
    return Response.json({ echo: body })
  },
}`;

/**
 * Attack: one isolate kills its shard. A handler that allocates 1 MB ArrayBuffers gets no RangeError: each one fits in
 * what is left of the process's RLIMIT_DATA until the process has none left, and the next allocation anywhere in it
 * (a V8 heap page) is fatal, so the whole workerd process dies (at about 500 MB resident) and every call in flight in
 * it with it. workerd has no per-isolate memory limit it recovers from; the host's guard is per process: the shard is
 * restarted, and a call in flight that the crash interrupted, when other handlers share the blame, runs again alone
 * in a process of its own. The neighbour's calls are answered (after a delay); the bomb's call fails on its own,
 * released, and strikes no one.
 */
describe("attack: a handler allocating 1 MB ArrayBuffers kills its shard and its neighbours' calls", function () {
  let stack: GateStack;
  let dataDir: string;
  let host: Host;
  const ids = new Map<string, Hex>();

  const statusOf = (slug: string) => host.pool.status(host.endpoints.get(slug)!.sandbox.key);
  const debited = (answer: { headers: Headers }) =>
    BigInt(receiptSchema.parse(decodeBase64Json(answer.headers.get("payment-response")!)).amount);
  /** The neighbour paid back to back until `stop()`: every answer, and what each debited. */
  function neighbourLoop() {
    const answers: { status: number; text: string; amount: bigint }[] = [];
    let stopped = false;
    const running = (async () => {
      for (let n = 0; !stopped; n++) {
        const answer = await payHosted(stack, host.url, "neighbour", { n, waitMs: 50 });
        answers.push({ ...answer, amount: answer.status === 200 ? debited(answer) : 0n });
      }
    })();
    return {
      answers,
      async stop() {
        stopped = true;
        await running;
      },
    };
  }

  /**
   * One bomb beside the neighbour: a slow neighbour call (3 s) under way in its sandbox when the bomb goes off, and the
   * loop; whether they shared a process, and the restarts each saw.
   */
  async function bombBesideNeighbour() {
    const balance = await stack.escrowBalance();
    const restarts = { bomber: statusOf("bomber").restarts, neighbour: statusOf("neighbour").restarts };
    const shared = statusOf("bomber").pid === statusOf("neighbour").pid;
    const loop = neighbourLoop();
    const slow = payHosted(stack, host.url, "neighbour", { slow: true, waitMs: SLOW_MS });
    await sleep(1_000);
    const bomb = await payHosted(stack, host.url, "bomber", { bomb: true });
    const inFlight = await slow;
    await sleep(300);
    await loop.stop();
    return { balance, restarts, shared, bomb, inFlight, loop: loop.answers };
  }

  before(async function () {
    stack = await startGateStack();
    dataDir = await mkdtemp(join(tmpdir(), "host-memory-bomb-"));
    host = await startTestHost(stack, {
      DATA_DIR: dataDir,
      // Room for the slow call's second run, alone, after the bomb's own second run has failed in the solo process.
      HANDLER_TIMEOUT_MS: "20000",
      SANDBOX_SHARDS: "1",
      SANDBOX_SHARD_CAPACITY: "4",
      SANDBOX_WATCHDOG_INTERVAL_MS: "100",
      SANDBOX_HEALTH_INTERVAL_MS: "250",
    });
    for (const [slug, source] of [
      ["bomber", BOMBER],
      ["neighbour", WAITING_ECHO],
    ] as const) {
      const body = sampleBody(stack, "echo", { slug, source, sampleRequest: {} });
      expect((await postJson(`${host.url}/deployments`, body, bearer)).status).to.equal(201);
      ids.set(slug, await registerSample(stack, "echo", slug));
      expect((await payHosted(stack, host.url, slug, { warm: 1 })).status).to.equal(200);
    }
  });

  after(async function () {
    await host?.stop();
    await stack?.close();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it("the bomber and the neighbour share one workerd process", function () {
    expect(statusOf("bomber").pid).to.be.a("number");
    expect(statusOf("bomber").pid).to.equal(statusOf("neighbour").pid);
  });

  for (const round of ["in their shared shard", "again, wherever the bomber was moved"]) {
    it(`a bomb ${round}: its call fails alone (502, nothing debited, no strike); every neighbour call is answered 200 and debited once`, async function () {
      const { balance, restarts, shared, bomb, inFlight, loop } = await bombBesideNeighbour();
      expect(bomb.status, bomb.text).to.equal(502);
      expect(bomb.body.error.code).to.equal("upstream_failed");
      expect(bomb.body.error.message).to.contain("no strike");
      expect(await stack.strikeQueued(bomb.idemKey, ids.get("bomber") as Hex)).to.equal(false);
      expect(statusOf("bomber").restarts, "the bomb took its process down").to.be.above(restarts.bomber);
      if (round === "in their shared shard") expect(shared).to.equal(true);
      if (shared)
        expect(statusOf("neighbour").restarts, "the neighbour's process died with it").to.be.above(restarts.neighbour);
      expect(inFlight.status, `the neighbour's call under way at the crash: ${inFlight.text}`).to.equal(200);
      expect(inFlight.body).to.deep.equal({ echo: { slow: true, waitMs: SLOW_MS } });
      expect(loop.length).to.be.above(0);
      expect(
        loop.filter((answer) => answer.status !== 200).map((answer) => answer.text),
        "the neighbour's calls meanwhile",
      ).to.deep.equal([]);
      const paid = debited(inFlight) + loop.reduce((sum, answer) => sum + answer.amount, 0n);
      // Debits are mined after the answer (committed settlement): wait for them, then check that nothing more came.
      await until(
        async () => ((await stack.escrowBalance()) === balance - paid ? true : undefined),
        20_000,
        "the debits",
      );
      await sleep(1_000);
      expect(await stack.escrowBalance(), "debited: the neighbour's calls, each once; the bomb nothing").to.equal(
        balance - paid,
      );
      expect(statusOf("bomber").quarantined).to.equal(true);
    });
  }
});
