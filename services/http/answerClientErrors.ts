import type { Server } from "node:http";
import { STATUS_CODES } from "node:http";
import type { Duplex } from "node:stream";

/** What Node's parser refused, as the error body says it: headers too large, too slow, or not HTTP it can read. */
function refusalOf(code: string | undefined): [status: number, message: string] {
  if (code === "HPE_HEADER_OVERFLOW") return [431, "the request's headers are too large"];
  if (code === "ERR_HTTP_REQUEST_TIMEOUT") return [408, "the request did not arrive in time"];
  return [400, "the request is not HTTP/1.1 that can be read (its request line, headers or framing)"];
}

/**
 * Answers a request Node's HTTP parser refuses (headers over 16 KiB, a malformed or duplicate Content-Length,
 * Transfer-Encoding beside Content-Length, …) with PROTOCOL.md's error body, where Node answers an empty 400 or 431,
 * then closes the connection, as Node does. A socket already gone or written to is only closed.
 * @example answerClientErrors(createServer(handler)).listen(4020)
 */
export function answerClientErrors<S extends Server>(server: S): S {
  server.on("clientError", (error: NodeJS.ErrnoException, socket: Duplex & { _httpMessage?: unknown }) => {
    if (!socket.writable || socket._httpMessage || error.code === "ECONNRESET") return void socket.destroy();
    const [status, message] = refusalOf(error.code);
    const body = JSON.stringify({ error: { code: "invalid_request", message } });
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\ncontent-type: application/json; charset=utf-8\r\n` +
        `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
    );
  });
  return server;
}
