import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "chai";
import { getJson, postJson } from "../../../testkit/facilitator/startFacilitator.ts";
import type { GateStack } from "../../../testkit/gate/gateStack.ts";
import { startGateStack } from "../../../testkit/gate/gateStack.ts";
import { SPINNER } from "../../../testkit/host/handlerSources.ts";
import { bearer, payHosted, registerSample, sampleBody, startTestHost } from "../../../testkit/host/testHost.ts";
import { until } from "../../../testkit/until.ts";
import { decodeBase64Json } from "../../protocol/base64.ts";
import { receiptSchema } from "../../protocol/schemas/receipt.ts";
import type { Host } from "../createHost.ts";

const HANDLER_TIMEOUT_MS = 3_000;
/** A restart of workerd and a reload of the neighbour, on a busy two-core machine; the bench measures the real time. */
const SLACK_MS = 5_000;

/**
 * Attack: a creator deploys a handler that spins inside its call, on a host where its isolate shares a workerd process
 * (one thread) with other creators' endpoints. Each paid call of it holds every neighbour of its shard until the
 * watchdog kills the process. Without quarantine the attacker keeps taking the whole shard down, once per call it
 * pays for (and its failed calls are never charged): every neighbour's calls in flight fail, and each stall holds
 * them up for the probe's time limit. With it, the spinner leaves its shard after its first stall and from then on
 * takes down no one but itself.
 */
describe("attack: a spinning handler takes down the neighbours of its shard", function () {
  let stack: GateStack;
  let dataDir: string;
  let host: Host;

  const keyOf = (slug: string) => host.endpoints.get(slug)!.sandbox.key;
  const statusOf = (slug: string) => host.pool.status(keyOf(slug));
  const shardPid = () => host.pool.shards().find((shard) => shard.name === "shard-0")?.pid;
  /** Pays one call that must answer; resolves with the amount its receipt says was debited. */
  const answers = async (slug: string, body: Record<string, unknown>): Promise<bigint> => {
    const answer = await payHosted(stack, host.url, slug, body);
    expect(answer.status, answer.text).to.equal(200);
    expect(answer.body).to.deep.equal({ echo: body });
    return BigInt(receiptSchema.parse(decodeBase64Json(answer.headers.get("payment-response")!)).amount);
  };
  const spins = async () => {
    const answer = await payHosted(stack, host.url, "spinner", { spin: true });
    expect(answer.status, answer.text).to.equal(502);
    expect(answer.body.error.code).to.equal("upstream_failed");
  };
  const debitedExactly = (before: bigint, amount: bigint) =>
    until(async () => ((await stack.escrowBalance()) === before - amount ? true : undefined), 10_000, "the debits");

  before(async function () {
    stack = await startGateStack();
    dataDir = await mkdtemp(join(tmpdir(), "host-shard-spin-"));
    host = await startTestHost(stack, {
      DATA_DIR: dataDir,
      HANDLER_TIMEOUT_MS: String(HANDLER_TIMEOUT_MS),
      SANDBOX_SHARDS: "1",
      SANDBOX_WATCHDOG_INTERVAL_MS: "100",
      SANDBOX_HEALTH_INTERVAL_MS: "250",
      SANDBOX_STALL_MS: "1000",
      SANDBOX_IDLE_UNLOAD_MS: "4000",
    });
    for (const [slug, source] of [
      ["neighbour", undefined],
      ["other-neighbour", undefined],
      ["spinner", SPINNER],
    ] as const) {
      const body = sampleBody(stack, "echo", source ? { slug, source } : { slug });
      expect((await postJson(`${host.url}/deployments`, body, bearer)).status).to.equal(201);
      await registerSample(stack, "echo", slug);
    }
    await answers("neighbour", { warm: 1 });
    await answers("other-neighbour", { warm: 1 });
    await answers("spinner", { warm: 1 });
    // A handler called since the shard's last answered probe is a suspect too (its code may still run): let a few
    // probes pass, so that the spinner's own calls alone fall in the window of each stall.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  });

  after(async function () {
    await host?.stop();
    await stack?.close();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it("all three share one workerd process", function () {
    expect(new Set(["neighbour", "other-neighbour", "spinner"].map((slug) => statusOf(slug).pid)).size).to.equal(1);
    expect(statusOf("spinner").shard).to.equal("shard-0");
  });

  it("a spin in a call: 502 and nothing debited, the shard is restarted within the call's time limit, the neighbours answer again, the spinner is quarantined alone", async function () {
    const pid = shardPid();
    const restarts = statusOf("neighbour").restarts;
    const balance = await stack.escrowBalance();
    await spins();
    await debitedExactly(balance, 0n);
    await until(() => (statusOf("neighbour").restarts > restarts ? true : undefined), SLACK_MS, "the shard's restart");
    expect(shardPid()).not.to.equal(pid);
    await until(
      async () => {
        const answer = await payHosted(stack, host.url, "neighbour", { back: true });
        return answer.status === 200 ? true : undefined;
      },
      SLACK_MS,
      "the neighbour answering again",
    );
    await answers("other-neighbour", { back: true });
    expect(statusOf("spinner")).to.deep.include({ quarantined: true });
    expect(statusOf("spinner").shard).to.match(/^quarantine-/);
    expect(statusOf("neighbour")).to.deep.include({ quarantined: false, shard: "shard-0" });
    expect(
      (await getJson(`${host.url}/deployments`, bearer)).body.find((d: { slug: string }) => d.slug === "spinner"),
    ).to.have.nested.property("sandbox.quarantined", true);
  });

  it("spinning again takes down no one else: the neighbours answer while it spins, their process lives on", async function () {
    await answers("spinner", { quarantined: "but serving" });
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const pid = shardPid();
    const restarts = statusOf("neighbour").restarts;
    const balance = await stack.escrowBalance();
    const spinning = spins();
    await new Promise((resolve) => setTimeout(resolve, 300));
    const paid =
      (await answers("neighbour", { meanwhile: true })) + (await answers("other-neighbour", { meanwhile: true }));
    await spinning;
    await debitedExactly(balance, paid);
    expect(shardPid()).to.equal(pid);
    expect(statusOf("neighbour").restarts).to.equal(restarts);
    await until(() => (statusOf("spinner").restarts > 1 ? true : undefined), SLACK_MS, "the spinner's own restart");
    await answers("spinner", { alone: true });
  });

  it("idling does not end a quarantine: the spinner, unloaded while idle, loads again in a quarantine shard", async function () {
    await until(() => (statusOf("spinner").shard === undefined ? true : undefined), 20_000, "the spinner unloaded");
    await answers("spinner", { back: "after idling" });
    expect(statusOf("spinner").shard).to.match(/^quarantine-/);
    expect(statusOf("spinner").quarantined).to.equal(true);
  });
});
