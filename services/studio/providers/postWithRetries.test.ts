import { expect } from "chai";
import { freePort } from "../../../testkit/freePort.ts";
import { llamaCpp, openai } from "../../../testkit/studio/modelServers.ts";
import type { WireAnswer } from "../../../testkit/studio/wireServer.ts";
import { startWireServer } from "../../../testkit/studio/wireServer.ts";
import { deadlineIn, postWithRetries } from "./postWithRetries.ts";
import { ProviderError } from "./providerError.ts";

describe("postWithRetries: one deadline per stage, network failures named, only what may pass retried", function () {
  this.timeout(30_000);
  const wires: { close(): Promise<void> }[] = [];
  afterEach(async () => Promise.all(wires.splice(0).map((w) => w.close())));
  const post = async (answers: WireAnswer[], deadlineMs = 10_000, retries = 2) => {
    const wire = await startWireServer(answers);
    wires.push(wire);
    const url = `${wire.url}/v1/chat/completions`;
    const outcome = await postWithRetries({ url, headers: {}, body: {}, deadline: deadlineIn(deadlineMs), retries })
      .then((answer) => ({ answer, error: undefined }))
      .catch((error: unknown) => ({ answer: undefined, error: error as ProviderError }));
    return { ...outcome, wire, url };
  };

  it("reports a body cut off mid-answer (the server closed the socket) as interrupted, with the URL, after retrying it", async function () {
    const cut = { ...openai.content('{"source":"export default {}"}'), cut: 40 };
    const { error, wire, url } = await post([cut]);
    expect(error).to.be.instanceOf(ProviderError);
    expect(error?.code).to.equal("interrupted");
    expect(error?.message).to.include(url);
    expect(error?.message).to.match(/was cut off: 127\.0\.0\.1:\d+ closed the connection \(3 tries\)/);
    expect(error?.next).to.match(/log/);
    expect(wire.requests).to.have.length(3);
    const recovered = await post([cut, openai.content("{}")]);
    expect(recovered.answer?.status).to.equal(200);
  });

  it("holds a server that never answers to one overall deadline, not a timeout per try", async function () {
    const { error, wire } = await post([{ hang: true }], 1_000, 3);
    expect(error?.code).to.equal("timeout");
    expect(error?.message).to.match(/within the stage's deadline of 1 s \(1 try\)/);
    expect(error?.next).to.match(/STUDIO_LLM_DEADLINE_SECONDS/);
    expect(wire.requests).to.have.length(1);
  });

  it("names a refused connection as such, instead of fetch's bare 'fetch failed'", async function () {
    const port = await freePort();
    const error = (await postWithRetries({
      url: `http://127.0.0.1:${port}/v1/chat/completions`,
      headers: {},
      body: {},
      deadline: deadlineIn(10_000),
      retries: 2,
    }).catch((e: unknown) => e)) as ProviderError;
    expect(error.code).to.equal("unreachable");
    expect(error.message).to.equal(
      `cannot reach http://127.0.0.1:${port}/v1/chat/completions: connection refused by 127.0.0.1:${port}: nothing listens there (1 try)`,
    );
    expect(error.next).to.match(/start the model server, or set STUDIO_LLM_URL/);
  });

  it("does not retry 501 Not Implemented, nor a 429 for a quota that waiting does not restore", async function () {
    const notImplemented = await post([llamaCpp.notSupported("This server does not support this request")]);
    expect(notImplemented.answer?.status).to.equal(501);
    expect(notImplemented.answer?.error.message).to.equal("This server does not support this request");
    expect(notImplemented.wire.requests).to.have.length(1);
    const quota = await post([openai.insufficientQuota()]);
    expect(quota.answer?.status).to.equal(429);
    expect(quota.wire.requests).to.have.length(1);
  });

  it("retries 503 (llama.cpp loading its model) and 500, then answers the last status", async function () {
    const loading = await post([llamaCpp.loading(), openai.content("{}")]);
    expect(loading.answer?.status).to.equal(200);
    const failing = await post([{ status: 500, raw: "oops" }]);
    expect(failing.answer?.status).to.equal(500);
    expect(failing.answer?.error.message).to.equal("oops");
    expect(failing.wire.requests).to.have.length(3);
  });
});
