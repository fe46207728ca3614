import {
  FACILITATOR_BATCH_ITEM_MAX_BYTES,
  FACILITATOR_BATCH_MAX_BYTES,
  FACILITATOR_BATCH_MAX_CALLS,
} from "../protocol/constants.ts";
import type { JsonClient, RequestJsonReturnType } from "./createJsonClient.ts";
import { createJsonClient, FRAMES_TYPE, JsonText } from "./createJsonClient.ts";

/** The facilitator's payment routes a batch carries. */
export type BatchRoute = "verify" | "release" | "settle";

/**
 * Payment calls to one facilitator, sent together: `call` answers as a `POST /<route>` of its own would (status,
 * Retry-After, body), whether the call went in a batch or alone.
 */
export type BatchLink = {
  call(route: BatchRoute, body: unknown, token: string | undefined): Promise<RequestJsonReturnType>;
  close(): void;
};

type Waiting = {
  route: BatchRoute;
  token: string | undefined;
  text: string;
  /** Bytes the call takes in a batch's body. */
  bytes: number;
  resolve: (answer: RequestJsonReturnType) => void;
};

type BatchAnswer = { status?: unknown; body?: unknown; retryAfter?: unknown };
/** One call's frame of a streamed batch answer: its index and answer, or `alone` (send it on its own route). */
type BatchFrame = BatchAnswer & { index?: unknown; alone?: unknown };

/** A call's answer as its own route would have given it. */
const answerOf = (a: BatchAnswer): RequestJsonReturnType => ({
  ok: true,
  status: typeof a.status === "number" ? a.status : 0,
  headers: typeof a.retryAfter === "string" ? { "retry-after": a.retryAfter } : {},
  body: a.body,
});

/** Batch answers that mean no call of the batch ran: no such route (an older facilitator), or an envelope refused. */
const NOT_RUN = new Set([400, 404, 413, 415]);

/**
 * Sends a process's payment calls to one facilitator in `POST /batch` requests (docs/protocol.md, "Facilitator
 * batches") instead of one request each: a call waits one turn of the event loop, and every call made in that turn
 * goes in the same batch, so under load one exchange (and one parse, one answer write on each side) serves many paid
 * calls, and the facilitator's store groups their statements. At most `maxInFlight` batches are out at once; calls
 * made meanwhile go in the next. The link asks for frames: each call is answered as soon as its frame arrives, and a
 * verify whose frame says `alone` (it waits for the facilitator's escrow book) is sent on its own route, outside the
 * batch and its slot. A call bigger than FACILITATOR_BATCH_ITEM_MAX_BYTES goes to its own route, as do
 * all calls once the facilitator has answered a batch with 404 (it has no batch route). A batch the facilitator
 * refused whole (400, 413, 415) is sent again call by call, since none of it ran; a batch that got no answer fails each
 * of its calls as a lost request of its own would.
 * @example const link = createBatchLink(createJsonClient({ baseUrl, timeoutMs })); await link.call("verify", body, token)
 */
export function createBatchLink(client: JsonClient, maxInFlight = 4): BatchLink {
  let queue: Waiting[] = [];
  let inFlight = 0;
  let scheduled = false;
  let batches = true;

  const alone = (route: BatchRoute, body: unknown, token: string | undefined) =>
    client.request("POST", `/${route}`, body, token ? { authorization: `Bearer ${token}` } : {});

  function take(): Waiting[] {
    let bytes = 16;
    let n = 0;
    while (n < queue.length && n < FACILITATOR_BATCH_MAX_CALLS) {
      const item = queue[n] as Waiting;
      if (n > 0 && bytes + item.bytes > FACILITATOR_BATCH_MAX_BYTES) break;
      bytes += item.bytes;
      n++;
    }
    const batch = queue.slice(0, n);
    queue = queue.slice(n);
    return batch;
  }

  async function resendAlone(batch: Waiting[]): Promise<void> {
    await Promise.all(batch.map(async (w) => w.resolve(await alone(w.route, new JsonText(w.text), w.token))));
  }

  async function send(batch: Waiting[]): Promise<void> {
    const calls = batch.map(
      (w) => `{"route":"${w.route}",${w.token ? `"token":${JSON.stringify(w.token)},` : ""}"body":${w.text}}`,
    );
    const answered = new Set<number>();
    // Each call is answered as soon as its frame arrives; a verify waiting for the escrow book goes alone, outside
    // this batch, so that it holds no batch (and none of its neighbours) while it waits.
    const onFrame = (frame: unknown) => {
      const f = (frame ?? {}) as BatchFrame;
      const w = typeof f.index === "number" ? batch[f.index] : undefined;
      if (!w || answered.has(f.index as number)) return;
      answered.add(f.index as number);
      if (f.alone === true) void alone(w.route, new JsonText(w.text), w.token).then(w.resolve);
      else w.resolve(answerOf(f));
    };
    const answer = await client.requestFrames(
      "POST",
      "/batch",
      new JsonText(`{"calls":[${calls.join(",")}]}`),
      { accept: `${FRAMES_TYPE}, application/json` },
      onFrame,
    );
    const unanswered = batch.filter((_, i) => !answered.has(i));
    if (!answer.ok) {
      for (const w of unanswered) w.resolve(answer);
      return;
    }
    if (String(answer.headers["content-type"] ?? "").startsWith(FRAMES_TYPE)) {
      for (const w of unanswered)
        w.resolve({ ok: false, error: "the facilitator's batch answer ended without this call" });
      return;
    }
    // Answered whole: a facilitator that does not stream, or a batch refused whole.
    const answers = (answer.body as { answers?: BatchAnswer[] } | undefined)?.answers;
    if (answer.status !== 200 || !Array.isArray(answers) || answers.length !== batch.length) {
      if (answer.status === 404) batches = false;
      if (NOT_RUN.has(answer.status)) return resendAlone(batch);
      for (const w of batch) w.resolve({ ok: false, error: `the facilitator answered a batch with ${answer.status}` });
      return;
    }
    for (const [i, w] of batch.entries()) w.resolve(answerOf(answers[i] as BatchAnswer));
  }

  function flush(): void {
    scheduled = false;
    while (queue.length > 0 && inFlight < maxInFlight) {
      const batch = take();
      inFlight++;
      void (batches ? send(batch) : resendAlone(batch)).finally(() => {
        inFlight--;
        if (queue.length > 0 && !scheduled) flush();
      });
    }
  }

  return {
    call(route, body, token) {
      const text = JSON.stringify(body);
      const bytes = Buffer.byteLength(text);
      if (!batches || bytes > FACILITATOR_BATCH_ITEM_MAX_BYTES) return alone(route, new JsonText(text), token);
      return new Promise((resolve) => {
        queue.push({ route, token, text, bytes: bytes + Buffer.byteLength(token ?? "") + 48, resolve });
        if (!scheduled) {
          scheduled = true;
          setImmediate(flush);
        }
      });
    },
    close: () => client.close(),
  };
}

const shared = new Map<string, { link: BatchLink; users: number }>();

/**
 * The batch link of this process to the facilitator at `url`, shared by every gate that uses it (a host's thousands
 * of endpoints send their calls in the same batches, over one pool of connections); `release` when done with it,
 * and the last release closes it.
 * @example const { link, release } = sharedBatchLink(url, 30_000)
 */
export function sharedBatchLink(url: string, timeoutMs: number): { link: BatchLink; release(): void } {
  const key = `${timeoutMs} ${url}`;
  let entry = shared.get(key);
  if (!entry) {
    entry = { link: createBatchLink(createJsonClient({ baseUrl: url, timeoutMs })), users: 0 };
    shared.set(key, entry);
  }
  entry.users++;
  const held = entry;
  let released = false;
  return {
    link: held.link,
    release() {
      if (released) return;
      released = true;
      if (--held.users > 0) return;
      held.link.close();
      if (shared.get(key) === held) shared.delete(key);
    },
  };
}
