import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { getPriority } from "node:os";
import { expect } from "chai";
import { threadNiceness as nicenessOf } from "../../testkit/stack/processNiceness.ts";
import type { Part } from "./childProcess.ts";
import { answers, startPart } from "./childProcess.ts";

const idle = { command: process.execPath, args: ["-e", "setInterval(() => {}, 1000)"], readyTimeoutMs: 60_000 };

/** Whether process `pid` is gone (or never was), polled until `ms` have passed. */
async function goneWithin(pid: number, ms: number): Promise<boolean> {
  const alive = () => {
    try {
      return process.kill(pid, 0);
    } catch {
      return false;
    }
  };
  for (const end = Date.now() + ms; alive() && Date.now() < end; )
    await new Promise((resolve) => setTimeout(resolve, 50));
  return !alive();
}

/** A part that started after all, stopped (its start should have failed: the test's expectation then says so). */
async function stopped(part: Part): Promise<Part> {
  await part.stop();
  return part;
}
describe("startPart", function () {
  it("reports a part that is slow to be ready while it waits, then gives up naming why", async function () {
    const progress: string[] = [];
    const failure = await startPart({
      name: "facilitator",
      ...idle,
      ready: async () => false,
      readyTimeoutMs: 1_000,
      progressEveryMs: 300,
      progress: (line) => progress.push(line),
      log: () => {},
    }).catch((error: Error) => error);
    expect(failure).to.be.instanceOf(Error);
    expect((failure as Error).message).to.match(/^facilitator was not ready after 1s \(answering, not ready yet\)/);
    // Every 300 ms at most, though it polls every 200 ms: at most four in the second it waits, fewer on a busy machine.
    expect(progress.length).to.be.within(1, 4);
    expect(progress[0]).to.match(/^still waiting for the facilitator after \d+ s: answering, not ready yet$/);
  });

  it("counts the deadline of a part that needs another from when that one is ready, however long it took", async function () {
    const progress: string[] = [];
    let indexerReadyAt = 0;
    const indexer = new Promise<void>((resolve) =>
      setTimeout(() => {
        indexerReadyAt = Date.now();
        resolve();
      }, 900),
    );
    const part = await startPart({
      name: "marketplace",
      ...idle,
      // Ready 200 ms after the indexer: 1.1 s after the start, past the 500 ms it may take by itself.
      ready: async () => indexerReadyAt > 0 && Date.now() >= indexerReadyAt + 200,
      after: { name: "indexer", ready: indexer },
      readyTimeoutMs: 500,
      progressEveryMs: 300,
      progress: (line) => progress.push(line),
      log: () => {},
    });
    await part.stop();
    expect(progress[0]).to.match(
      /^still waiting for the marketplace after \d+ s: .* \(waiting for the indexer first\)$/,
    );

    const late = await startPart({
      name: "marketplace",
      ...idle,
      ready: async () => false,
      after: { name: "indexer", ready: Promise.resolve() },
      readyTimeoutMs: 300,
      log: () => {},
    }).catch((error: Error) => error);
    expect((late as Error).message).to.match(/^marketplace was not ready 0.3s after the indexer was \(/);
  });

  it("gives up at once, and stops the part, when the part it needs fails", async function () {
    let pid: number | undefined;
    const failure = await startPart({
      name: "marketplace",
      command: process.execPath,
      args: ["-e", "console.log(process.pid); setInterval(() => {}, 1000)"],
      ready: async () => false,
      after: {
        name: "indexer",
        // Fails once the marketplace runs (it printed its pid), however slowly the machine starts it.
        ready: new Promise((_, reject) => {
          const poll = setInterval(() => {
            if (pid === undefined) return;
            clearInterval(poll);
            reject(new Error("no schema"));
          }, 20);
        }),
      },
      readyTimeoutMs: 600_000,
      log: (line) => (pid ??= Number(line.split("| ")[1])),
    }).catch((error: Error) => error);
    expect((failure as Error).message).to.equal("marketplace was not started: the indexer it needs failed (no schema)");
    expect(pid).to.be.a("number");
    expect(await goneWithin(pid as number, 5_000), "the marketplace's process").to.equal(true);
  });

  it("names a part that does not answer at all by the connection's error", async function () {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    await new Promise((resolve) => server.close(resolve));
    const failure = await startPart({
      name: "host",
      ...idle,
      ready: () => answers(`http://127.0.0.1:${port}/ready`),
      readyTimeoutMs: 500,
      log: () => {},
    }).catch((error: Error) => error);
    expect((failure as Error).message).to.match(/^host was not ready after 0.5s \(not answering \(ECONNREFUSED\)\)/);
  });

  it("counts a part as started once it is ready, and fails fast when it exits first, with its output", async function () {
    let polls = 0;
    const part = await startPart({ name: "chain", ...idle, ready: async () => ++polls >= 2, log: () => {} });
    expect(polls).to.equal(2);
    await part.stop();
    expect(part.child.exitCode !== null || part.child.signalCode !== null).to.equal(true);

    const failure = await startPart({
      name: "indexer",
      command: process.execPath,
      args: ["-e", "console.error('no schema given'); process.exit(3)"],
      ready: async () => false,
      readyTimeoutMs: 60_000,
      log: () => {},
    }).catch((error: Error) => error);
    expect((failure as Error).message).to.equal("indexer exited with code 3 before it was ready:\nno schema given");
  });

  describe("a part's port taken by another process (a port collision)", function () {
    let other: ReturnType<typeof createServer>;
    let port: number;
    beforeEach(async function () {
      // Another process's service on the part's port, answering every readiness check on loopback.
      other = createServer((_, response) => response.end("{}"));
      await new Promise<void>((resolve) => other.listen(0, "127.0.0.1", resolve));
      port = (other.address() as AddressInfo).port;
    });
    afterEach(async () => new Promise<void>((resolve) => other.close(() => resolve())));

    it("fails at once, naming the part, the port and its setting, and never spawns the part", async function () {
      const lines: string[] = [];
      const failure = await startPart({
        name: "facilitator",
        command: process.execPath,
        args: ["-e", "console.log('spawned'); setInterval(() => {}, 1000)"],
        readyTimeoutMs: 60_000,
        listens: { port, setting: "FACILITATOR_PORT" },
        ready: () => answers(`http://127.0.0.1:${port}/ready`).then((ok) => ok === true),
        log: (line) => lines.push(line),
      }).then(stopped, (error: Error) => error);
      expect(failure, "started on another process's answer").to.be.instanceOf(Error);
      expect((failure as Error).message).to.equal(
        `facilitator was not started: port ${port} is taken (EADDRINUSE); stop what uses it or set FACILITATOR_PORT to another port`,
      );
      expect(lines, "never spawned").to.deep.equal([]);
    });

    it("takes no answer for the part's once the part has exited: it fails with the part's last lines", async function () {
      // The part's own listen fails while a poll is under way, which another process answers once the part is gone.
      let pid: number | undefined;
      const failure = await startPart({
        name: "chain",
        command: process.execPath,
        args: [
          "-e",
          `console.log(process.pid); setTimeout(() => { console.error("Error: listen EADDRINUSE 127.0.0.1:${port}"); process.exit(1); }, 100)`,
        ],
        readyTimeoutMs: 60_000,
        ready: async () => {
          while (pid === undefined) await new Promise((resolve) => setTimeout(resolve, 20));
          await goneWithin(pid, 60_000);
          return answers(`http://127.0.0.1:${port}/`).then((ok) => ok === true);
        },
        log: (line) => (pid ??= Number(line.split("| ")[1])),
      }).then(stopped, (error: Error) => error);
      expect(failure, "started on another process's answer").to.be.instanceOf(Error);
      expect((failure as Error).message).to.match(
        new RegExp(
          `^chain exited with code 1 before it was ready:\\n[\\s\\S]*Error: listen EADDRINUSE 127\\.0\\.0\\.1:${port}$`,
        ),
      );
    });
  });

  it("gives a part up at once, killing it, when the start is abandoned (another part failed)", async function () {
    let pid: number | undefined;
    const abandon = new AbortController();
    setTimeout(() => abandon.abort(new Error("facilitator exited with code 1 before it was ready")), 300);
    const failure = await startPart({
      name: "marketplace",
      command: process.execPath,
      args: ["-e", "console.log(process.pid); setInterval(() => {}, 1000)"],
      ready: async () => false,
      readyTimeoutMs: 600_000,
      signal: abandon.signal,
      log: (line) => (pid ??= Number(line.split("| ")[1])),
    }).catch((error: Error) => error);
    expect((failure as Error).message).to.equal(
      "marketplace was not started: facilitator exited with code 1 before it was ready",
    );
    expect(await goneWithin(pid as number, 5_000), "the marketplace's process").to.equal(true);
  });

  it("says why a part that answers is not ready yet, from its answer's error body", async function () {
    const server = createServer((_, response) => {
      response.writeHead(503, { "content-type": "application/json" });
      response.end(
        JSON.stringify({
          error: { code: "not_ready", message: "the indexer is not ready (backfill running or unreachable)" },
        }),
      );
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    const progress: string[] = [];
    try {
      const failure = await startPart({
        name: "marketplace",
        ...idle,
        ready: () => answers(`http://127.0.0.1:${port}/ready`),
        readyTimeoutMs: 3_000,
        progressEveryMs: 300,
        progress: (line) => progress.push(line),
        log: () => {},
      }).catch((error: Error) => error);
      const why = "answering, not ready yet: the indexer is not ready (backfill running or unreachable)";
      expect(progress[0]).to.match(
        new RegExp(`^still waiting for the marketplace after \\d+ s: ${why.replace(/[()]/g, "\\$&")}$`),
      );
      expect((failure as Error).message).to.match(
        new RegExp(`^marketplace was not ready after 3s \\(${why.replace(/[()]/g, "\\$&")}\\)`),
      );
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it("runs a part at the niceness asked, in every thread it starts, under its own pid", async function () {
    const niced = await startPart({ name: "indexer", ...idle, niceness: 7, ready: async () => true, log: () => {} });
    const plain = await startPart({ name: "host", ...idle, ready: async () => true, log: () => {} });
    try {
      const pid = niced.child.pid as number;
      // Node starts its worker threads as it boots: wait until they are there, then read them all.
      while (nicenessOf(pid).length < 4) await new Promise((resolve) => setTimeout(resolve, 50));
      expect(readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0")[0]).to.equal(process.execPath);
      // `nice -n` adds to the niceness it runs at (this process's), up to 19.
      expect(new Set(nicenessOf(pid))).to.deep.equal(new Set([Math.min(19, getPriority() + 7)]));
      expect(new Set(nicenessOf(plain.child.pid as number))).to.deep.equal(new Set([getPriority()]));
    } finally {
      await Promise.all([niced.stop(), plain.stop()]);
    }
    expect(niced.child.signalCode).to.equal("SIGTERM");
  });

  it("fails a part whose command cannot be run by its name, not by an uncaught error", async function () {
    // Before, spawn's error event had no listener: the start died with an unhandled error and its stack.
    const missing = "/nonexistent/service-marketplace-command";
    const failure = await startPart({
      name: "studio",
      command: missing,
      args: [],
      ready: async () => false,
      readyTimeoutMs: 60_000,
      log: () => {},
    }).catch((error: Error) => error);
    expect((failure as Error).message).to.equal(`studio could not start (${missing}): spawn ${missing} ENOENT`);
  });
});
