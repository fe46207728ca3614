import type { IncomingMessage, Server, ServerResponse } from "node:http";
import { expect } from "chai";
import type { Seen } from "../../testkit/gate/facilitatorAt.ts";
import { facilitatorAt } from "../../testkit/gate/facilitatorAt.ts";
import { FACILITATOR_BATCH_ITEM_MAX_BYTES } from "../protocol/constants.ts";
import { createBatchLink, sharedBatchLink } from "./createBatchLink.ts";
import { createJsonClient } from "./createJsonClient.ts";

/** Answers a batch call by call: a verify with its index echoed, a settle pending with Retry-After. */
const batchAnswers = ({ path, body }: Seen) =>
  path === "/batch"
    ? {
        status: 200,
        body: {
          answers: body.calls.map((call: { route: string; token?: string; body: { n: number } }) =>
            call.route === "settle"
              ? { status: 503, body: { error: { code: "settlement_pending" } }, retryAfter: "3" }
              : { status: 200, body: { n: call.body.n, token: call.token ?? null } },
          ),
        },
      }
    : { status: 200, body: { alone: path, n: body?.n } };

describe("createBatchLink: a process's payment calls to one facilitator, sent together", function () {
  const servers: Server[] = [];
  after(function () {
    for (const server of servers) server.close();
  });
  const start = async (answer: (seen: Seen) => { status: number; body: unknown }) => {
    const facilitator = await facilitatorAt(answer);
    servers.push(facilitator.server);
    return { ...facilitator, link: createBatchLink(createJsonClient({ baseUrl: facilitator.url, timeoutMs: 5_000 })) };
  };

  it("sends the calls of one turn in one batch and gives each caller its own answer, token and Retry-After", async function () {
    const { link, seen } = await start(batchAnswers);
    const answers = await Promise.all([
      ...Array.from({ length: 20 }, (_, n) => link.call("verify", { n }, `token-${n % 3}`)),
      link.call("settle", { n: 20 }, undefined),
    ]);
    expect(seen.map((s) => s.path)).to.deep.equal(["/batch"]);
    expect(seen[0]?.body.calls).to.have.length(21);
    for (const [n, answer] of answers.slice(0, 20).entries()) {
      expect(answer).to.deep.include({ ok: true, status: 200, body: { n, token: `token-${n % 3}` } });
    }
    expect(answers[20]).to.deep.include({ ok: true, status: 503, headers: { "retry-after": "3" } });
    link.close();
  });

  it("sends calls made while batches are out in the next batch, never more than the batches allowed at once", async function () {
    let open = 0;
    let most = 0;
    const { url, seen, server } = await facilitatorAt(() => ({ status: 200, body: {} }));
    servers.push(server);
    // A facilitator that answers each batch after 20 ms, counting batches out at once.
    server.removeAllListeners("request");
    server.on("request", (req: IncomingMessage, res: ServerResponse) => {
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => {
        const body = JSON.parse(Buffer.concat(chunks).toString());
        seen.push({ path: req.url ?? "", authorization: undefined, body });
        most = Math.max(most, ++open);
        setTimeout(() => {
          open--;
          const answers = body.calls.map((call: { body: unknown }) => ({ status: 200, body: call.body }));
          res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ answers }));
        }, 20);
      });
    });
    const link = createBatchLink(createJsonClient({ baseUrl: url, timeoutMs: 5_000 }), 2);
    const calls: Promise<unknown>[] = [];
    for (let turn = 0; turn < 6; turn++) {
      for (let n = 0; n < 5; n++) calls.push(link.call("verify", { turn, n }, undefined));
      await new Promise((resolve) => setImmediate(resolve));
    }
    const answers = (await Promise.all(calls)) as { body: { turn: number; n: number } }[];
    expect(answers.map((a) => `${a.body.turn}.${a.body.n}`)).to.deep.equal(
      Array.from({ length: 30 }, (_, i) => `${Math.floor(i / 5)}.${i % 5}`),
    );
    expect(most).to.equal(2);
    expect(seen.length).to.be.below(6);
    link.close();
  });

  it("falls back to each call's own route when the facilitator has no batch route (404), and stays there", async function () {
    const { link, seen } = await start(({ path, body }) =>
      path === "/batch" ? { status: 404, body: { error: { code: "not_found" } } } : { status: 200, body: body },
    );
    const first = await Promise.all([link.call("verify", { n: 1 }, "t1"), link.call("settle", { n: 2 }, undefined)]);
    expect(first.map((a) => a.ok && a.body)).to.deep.equal([{ n: 1 }, { n: 2 }]);
    await link.call("release", { n: 3 }, "t3");
    expect(seen.map((s) => s.path)).to.deep.equal(["/batch", "/verify", "/settle", "/release"]);
    expect(seen.map((s) => s.authorization)).to.deep.equal([undefined, "Bearer t1", undefined, "Bearer t3"]);
    link.close();
  });

  it("resends a batch refused whole (413, 415) call by call, and sends a call too big for a batch on its own", async function () {
    for (const [status, code] of [
      [415, "unsupported_media_type"],
      [413, "payload_too_large"],
    ] as const) {
      const { link, seen } = await start(({ path, body }) =>
        path === "/batch" ? { status, body: { error: { code } } } : { status: 200, body },
      );
      const answers = await Promise.all([link.call("verify", { n: 1 }, "t"), link.call("verify", { n: 2 }, "t")]);
      expect(
        answers.map((a) => a.ok && a.status),
        `after ${status}`,
      ).to.deep.equal([200, 200]);
      expect(seen.map((s) => s.path)).to.deep.equal(["/batch", "/verify", "/verify"]);
      if (status === 415) link.close();
    }
    const { link, seen } = await start(({ path, body }) =>
      path === "/batch" ? { status: 413, body: { error: { code: "payload_too_large" } } } : { status: 200, body },
    );
    const big = { blob: "x".repeat(FACILITATOR_BATCH_ITEM_MAX_BYTES) };
    expect(await link.call("settle", big, "t")).to.deep.include({ ok: true, status: 200, body: big });
    expect(seen.at(-1)?.path).to.equal("/settle");
    link.close();
  });

  it("answers each call as its frame arrives, sends a call whose frame says alone on its own route, and fails a call the frames never answered", async function () {
    const { url, seen, server } = await facilitatorAt(() => ({ status: 200, body: {} }));
    servers.push(server);
    // A streaming facilitator: the last call's frame first, the first call's 300 ms later, the second's never; the
    // third is to be sent alone.
    let release: () => void = () => {};
    const lastFrameSent = new Promise<void>((resolve) => {
      release = resolve;
    });
    server.removeAllListeners("request");
    server.on("request", (req: IncomingMessage, res: ServerResponse) => {
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => {
        const body = JSON.parse(Buffer.concat(chunks).toString());
        seen.push({ path: req.url ?? "", authorization: req.headers.accept, body });
        if (req.url !== "/batch") return res.writeHead(200, { "content-type": "application/json" }).end('{"alone":1}');
        res.writeHead(200, { "content-type": "application/x-ndjson" });
        res.write(`${JSON.stringify({ index: 3, status: 503, body: { n: 3 }, retryAfter: "1" })}\n`);
        res.write(`${JSON.stringify({ index: 2, alone: true })}\n`);
        setTimeout(() => {
          res.end(`${JSON.stringify({ index: 0, status: 200, body: { n: 0 } })}\n`);
          release();
        }, 300);
      });
    });
    const link = createBatchLink(createJsonClient({ baseUrl: url, timeoutMs: 5_000 }));
    const order: number[] = [];
    const answers = await Promise.all(
      [0, 1, 2, 3].map(async (n) => {
        const answer = await link.call("verify", { n }, undefined);
        order.push(n);
        return answer;
      }),
    );
    await lastFrameSent;
    expect(seen[0]?.authorization, "the link asks for frames").to.match(/application\/x-ndjson/);
    expect(order.slice(0, 2), "answered as their frames came, before the batch ended").to.have.members([3, 2]);
    expect(answers[3]).to.deep.include({ ok: true, status: 503, headers: { "retry-after": "1" }, body: { n: 3 } });
    expect(answers[2]).to.deep.include({ ok: true, status: 200, body: { alone: 1 } });
    expect(seen.map((s) => s.path)).to.deep.equal(["/batch", "/verify"]);
    expect(answers[0]).to.deep.include({ ok: true, status: 200, body: { n: 0 } });
    expect(answers[1]?.ok, "no frame: a lost request").to.equal(false);
    link.close();
  });

  it("fails each call of a batch that got no answer, as a lost request of its own would fail", async function () {
    const { url, server } = await facilitatorAt(() => ({ status: 200, body: {} }));
    await new Promise((resolve) => server.close(resolve));
    const link = createBatchLink(createJsonClient({ baseUrl: url, timeoutMs: 5_000 }));
    const answers = await Promise.all([link.call("verify", { n: 1 }, "t"), link.call("settle", { n: 2 }, "t")]);
    for (const answer of answers) expect(answer.ok).to.equal(false);
    link.close();
  });

  it("is shared by every user of one facilitator URL, and closed by the last release", async function () {
    const { url, seen } = await start(batchAnswers);
    const one = sharedBatchLink(url, 5_000);
    const two = sharedBatchLink(url, 5_000);
    expect(one.link).to.equal(two.link);
    await Promise.all([one.link.call("verify", { n: 1 }, "a"), two.link.call("verify", { n: 2 }, "b")]);
    expect(seen.filter((s) => s.path === "/batch")).to.have.length(1);
    one.release();
    one.release();
    const three = sharedBatchLink(url, 5_000);
    expect(three.link, "still shared after one release").to.equal(two.link);
    two.release();
    three.release();
    const fresh = sharedBatchLink(url, 5_000);
    expect(fresh.link, "a new link once the last user released it").not.to.equal(two.link);
    fresh.release();
  });
});
