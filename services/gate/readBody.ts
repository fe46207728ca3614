import type { IncomingMessage } from "node:http";
import type { GateMiddleware } from "./gateRuntime.ts";
import { sendError } from "./sendError.ts";

type ReadOutcome = { kind: "read"; body: Buffer } | { kind: "too_large" } | { kind: "aborted" };

function readLimited(req: IncomingMessage, limit: number): Promise<ReadOutcome> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.off("data", onData);
        req.pause();
        resolve({ kind: "too_large" });
      } else {
        chunks.push(chunk);
      }
    };
    req.on("data", onData);
    req.once("end", () => resolve({ kind: "read", body: Buffer.concat(chunks) }));
    req.once("error", () => resolve({ kind: "aborted" }));
    req.once("aborted", () => resolve({ kind: "aborted" }));
  });
}

/**
 * Step 2: reads the raw body, refusing with 413 as soon as it passes the limit (before reading it, when
 * `Content-Length` already says so).
 * @example app.use(readBody(1_048_576))
 */
export function readBody(limit: number): GateMiddleware {
  return async (koa, next) => {
    const declared = koa.get("content-length");
    if (declared && Number(declared) > limit) {
      return sendError(koa, 413, "payload_too_large", `the body is limited to ${limit} bytes`, { Connection: "close" });
    }
    const outcome = await readLimited(koa.req, limit);
    if (outcome.kind === "too_large") {
      return sendError(koa, 413, "payload_too_large", `the body is limited to ${limit} bytes`, { Connection: "close" });
    }
    if (outcome.kind === "aborted") return sendError(koa, 400, "invalid_request", "the body could not be read");
    koa.state.rawBody = outcome.body;
    await next();
  };
}
