import type { RequestListener, Server } from "node:http";
import { createServer } from "node:http";
import { answerClientErrors } from "./answerClientErrors.ts";
import { keepIdleConnections } from "./keepIdleConnections.ts";

/** Writes PROTOCOL.md's error body with `status`. */
function refuse(res: Parameters<RequestListener>[1], status: number, message: string): void {
  const body = JSON.stringify({ error: { code: "invalid_request", message } });
  res.writeHead(status, {
    "content-type": "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(body),
  });
  res.end(body);
}

/**
 * An HTTP server for `listener` whose every refusal carries PROTOCOL.md's error body, including those Node answers
 * itself with none: a request its parser refuses (answerClientErrors), an HTTP/1.1 request without `Host` (400, as
 * RFC 9112 requires) and an `Expect` other than `100-continue` (417). Idle kept-alive connections outlast their
 * clients (keepIdleConnections).
 * @example createJsonServer(app.callback()).listen(4020)
 */
export function createJsonServer(listener: RequestListener): Server {
  const server = createServer({ requireHostHeader: false }, (req, res) => {
    if (req.headers.host === undefined && req.httpVersionMajor === 1 && req.httpVersionMinor >= 1)
      return refuse(res, 400, "an HTTP/1.1 request must carry a Host header");
    listener(req, res);
  });
  server.on("checkExpectation", (_req, res) =>
    refuse(res, 417, "the Expect header asks for what this server does not do (only 100-continue)"),
  );
  return answerClientErrors(keepIdleConnections(server));
}
