import { request as httpRequest } from "node:http";
import { expect } from "chai";
import { until } from "../../testkit/until.ts";
import type { Shard } from "./createShard.ts";
import { createShard } from "./createShard.ts";
import { readProcessMemory } from "./readProcessMemory.ts";
import { SANDBOX_KEY_HEADER, SHARD_PATHS } from "./shardDispatcher.ts";

const MIB = 2 ** 20;

/**
 * Holds 64 MiB of touched memory from its top level on, and answers how many calls its isolate has served; `wait`
 * delays the answer, `abort` ends its own isolate.
 */
const HEAVY = `import { abortIsolate } from 'cloudflare:workers'
const ballast = new Uint8Array(64 * 1024 * 1024).fill(7)
let served = 0
export default {
  async fetch(request) {
    const { wait = 0, abort = false } = await request.json()
    if (abort) abortIsolate('asked to')
    if (wait) await scheduler.wait(wait)
    return Response.json({ served: ++served, ballast: ballast[12345] })
  },
}`;

const callOf = (body: Record<string, unknown>) => ({
  body,
  rawBody: Buffer.from(JSON.stringify(body)),
  signal: AbortSignal.timeout(10_000),
  maxResponseBytes: 65_536,
});

const servedBy = async (shard: Shard, key: string, body: Record<string, unknown> = {}) => {
  const result = await shard.call({ key, source: HEAVY }, callOf(body));
  expect(result.status, result.body.toString()).to.equal(200);
  return (JSON.parse(result.body.toString()) as { served: number }).served;
};

const rssOf = (shard: Shard) => readProcessMemory(shard.pid() as number)?.rssBytes ?? 0;

/** Sends `path` straight to the shard's socket with `key`'s header, as only the host does. */
function sendRaw(port: number, path: string, key: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: "127.0.0.1", port, path, method: "POST", headers: { [SANDBOX_KEY_HEADER]: key } });
    req.on("response", (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
    });
    req.on("error", reject);
    req.end("{}");
  });
}

describe("createShard: a handler's isolate", function () {
  let shard: Shard;

  before(async function () {
    shard = await createShard({ name: "shard-test", capacity: 8 });
  });

  after(async function () {
    await shard?.close();
  });

  it("is freed when the handler is unloaded: the process gives its memory back", async function () {
    const base = rssOf(shard);
    await servedBy(shard, "heavy.1");
    await servedBy(shard, "heavy.2");
    const loaded = rssOf(shard);
    expect(loaded - base).to.be.greaterThan(100 * MIB);
    await shard.unload("heavy.1");
    await shard.unload("heavy.2");
    await until(() => (rssOf(shard) < loaded - 100 * MIB ? true : undefined), 10_000, "the memory given back");
  });

  it("stays one isolate across calls, and a reload of a loaded key keeps it", async function () {
    expect(await servedBy(shard, "heavy.3")).to.equal(1);
    expect(await servedBy(shard, "heavy.3")).to.equal(2);
    await shard.load({ key: "heavy.3", source: HEAVY });
    expect(await servedBy(shard, "heavy.3")).to.equal(3);
    await shard.unload("heavy.3");
    expect(await servedBy(shard, "heavy.3")).to.equal(1);
  });

  it("serves the calls under way when it is unloaded, then unloads", async function () {
    await servedBy(shard, "heavy.4");
    const slow = servedBy(shard, "heavy.4", { wait: 400 });
    await new Promise((resolve) => setTimeout(resolve, 50));
    const unloading = shard.unload("heavy.4");
    expect(await slow).to.equal(2);
    await unloading;
    expect(shard.loaded()).not.to.include("heavy.4");
  });

  it("that a handler ends itself fails only that call: its next call starts it again from its source", async function () {
    expect(await servedBy(shard, "heavy.6")).to.equal(1);
    expect(await servedBy(shard, "heavy.6")).to.equal(2);
    const restarts = shard.restarts();
    const aborted = await shard.call({ key: "heavy.6", source: HEAVY }, callOf({ abort: true })).catch((e: Error) => e);
    expect(aborted instanceof Error || aborted.status >= 500, String(aborted)).to.equal(true);
    await until(async () => ((await shard.ready()) ? true : undefined), 10_000, "the shard answering");
    expect(await servedBy(shard, "heavy.6")).to.equal(1);
    expect(shard.restarts()).to.equal(restarts);
  });

  it("attack: a request to the handler entry's retire route does not end the isolate (404, and it serves on)", async function () {
    expect(await servedBy(shard, "heavy.5")).to.equal(1);
    const port = Number(shard.url()?.port);
    expect(await sendRaw(port, SHARD_PATHS.retire, "heavy.5")).to.equal(404);
    expect(await servedBy(shard, "heavy.5")).to.equal(2);
  });
});
