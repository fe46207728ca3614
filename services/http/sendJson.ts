import type { ServerResponse } from "node:http";

/**
 * Answers a request straight from Node (outside Koa) with `body` as JSON, unless the client is already gone.
 * @example sendJson(res, 404, { error: { code: "not_found", message: "no resource with this slug" } })
 */
export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  if (res.destroyed) return;
  const text = JSON.stringify(body);
  res
    .writeHead(status, {
      ...headers,
      "content-type": "application/json; charset=utf-8",
      "content-length": String(Buffer.byteLength(text)),
    })
    .end(text);
}
