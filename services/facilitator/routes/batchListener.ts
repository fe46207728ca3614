import type { RequestListener } from "node:http";
import type { ErrorBodiesParameters } from "../../http/errorBodies.ts";
import { errorAnswer } from "../../http/errorBodies.ts";
import { HttpError } from "../../http/httpError.ts";
import { readJsonBody } from "../../http/readJsonBody.ts";
import { sendJson } from "../../http/sendJson.ts";
import { FACILITATOR_BATCH_MAX_BYTES } from "../../protocol/constants.ts";
import type { FacilitatorContext } from "../facilitatorContext.ts";
import type { CallerAuth } from "./paymentOperations.ts";
import type { BatchAnswer, BatchCalls } from "./runBatch.ts";
import { parseBatch, runBatch } from "./runBatch.ts";

/** The content type of a streamed batch answer: one JSON frame per line (BatchFrame), as each call is done. */
const FRAMES_TYPE = "application/x-ndjson";
const FRAMES_ACCEPTED = /(?:^|[\s,])application\/x-ndjson\s*(?:[;,]|$)/i;

/**
 * The facilitator's request listener: `POST /batch` (runBatch) straight from Node's request, every other request to
 * `rest` (the Koa app). Every paid call's verify and settle come in batches, and Koa's body parser, router and
 * response cost about as much again as reading and answering a batch here (docs/benchmarks.md, below the headline
 * figures). Answers as the Koa routes do: the same error bodies (400 not JSON or a malformed envelope, 413 too big,
 * 415 not JSON by its content type, 405 with `Allow: POST` for another method), the same request metric. A request that
 * accepts `application/x-ndjson` gets each call's frame the moment it is done (runBatch, streamed); any other, every
 * answer at once.
 * @example const server = await listen(batchListener(ctx, auth, { logger }, app.callback()), 4020, "127.0.0.1")
 */
export function batchListener(
  ctx: FacilitatorContext,
  auth: CallerAuth,
  errors: ErrorBodiesParameters,
  rest: RequestListener,
): RequestListener {
  return (req, res) => {
    if (req.url?.split("?", 1)[0] !== "/batch") return rest(req, res);
    const started = performance.now();
    const observe = (status: number) =>
      ctx.metrics.requestSeconds.observe(
        { route: "/batch", status: String(status) },
        (performance.now() - started) / 1000,
      );
    const answer = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      sendJson(res, status, body, headers);
      observe(status);
    };
    if (req.method !== "POST") {
      const refused = new HttpError(405, "method_not_allowed", "a batch is sent with POST");
      const { status, body } = errorAnswer(refused, errors, "/batch");
      answer(status, body, { allow: "POST" });
      return void req.resume();
    }
    /**
     * Each call's frame on its own line as soon as it is done (the frames of calls done in the same turn of the event
     * loop, which the store's grouped statements make common, in one write); a verify that waits for the book says
     * `alone`.
     */
    const stream = async (calls: BatchCalls) => {
      res.writeHead(200, { "content-type": `${FRAMES_TYPE}; charset=utf-8` });
      let lines = "";
      const flush = () => {
        if (lines !== "" && !res.destroyed) res.write(lines);
        lines = "";
      };
      await runBatch(
        ctx,
        auth,
        calls,
        errors,
        (frame) => {
          if (lines === "") setImmediate(flush);
          lines += `${JSON.stringify(frame)}\n`;
        },
        true,
      );
      res.end(lines);
      lines = "";
      observe(200);
    };
    /** Every call's answer, in the calls' order, once all are done. */
    const whole = async (calls: BatchCalls) => {
      const answers: BatchAnswer[] = [];
      await runBatch(
        ctx,
        auth,
        calls,
        errors,
        ({ index, ...frame }) => {
          if (!("alone" in frame)) answers[index] = frame;
        },
        false,
      );
      answer(200, { answers });
    };
    const streamed = FRAMES_ACCEPTED.test(req.headers.accept ?? "");
    void readJsonBody(req, { maxBytes: FACILITATOR_BATCH_MAX_BYTES, what: "a batch" })
      .then(parseBatch)
      .then(
        (calls) => (streamed ? stream(calls) : whole(calls)).catch(() => res.destroy()),
        (error: unknown) => {
          const { status, headers, body } = errorAnswer(error, errors, "/batch");
          // A body left unread (too big, or refused before it was read) is not read: the connection closes.
          if (!req.complete) res.setHeader("connection", "close");
          answer(status, body, headers);
          req.resume();
        },
      );
  };
}
