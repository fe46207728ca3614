import type { IncomingHttpHeaders } from "node:http";
import { Agent as HttpAgent, request as httpRequest } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";

/** A JSON answer, or why there is none (connection refused, timeout, a body that is not JSON). */
export type RequestJsonReturnType =
  | { ok: true; status: number; headers: IncomingHttpHeaders; body: unknown }
  | { ok: false; error: string };

/** A request body already serialized as JSON text: sent as it is, not serialized again. */
export class JsonText {
  readonly text: string;
  constructor(text: string) {
    this.text = text;
  }
}

/** A keep-alive JSON client bound to one origin. */
export type JsonClient = {
  request(
    method: "GET" | "POST",
    path: string,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<RequestJsonReturnType>;
  close(): void;
};

/**
 * A small JSON-over-HTTP client with keep-alive connections; failures are data, never exceptions.
 * (node:http with a keep-alive agent is several times cheaper per call than fetch under load.)
 * @example const client = createJsonClient({ baseUrl: 'http://127.0.0.1:4020', timeoutMs: 15_000 })
 */
export function createJsonClient({
  baseUrl,
  timeoutMs,
  maxSockets = 256,
}: {
  baseUrl: string;
  timeoutMs: number;
  maxSockets?: number;
}): JsonClient {
  const base = new URL(baseUrl);
  const secure = base.protocol === "https:";
  const agent = secure
    ? new HttpsAgent({ keepAlive: true, maxSockets })
    : new HttpAgent({ keepAlive: true, maxSockets });
  const send = secure ? httpsRequest : httpRequest;
  const prefix = base.pathname.replace(/\/$/, "");

  function request(
    method: "GET" | "POST",
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<RequestJsonReturnType> {
    const payload =
      body === undefined ? undefined : Buffer.from(body instanceof JsonText ? body.text : JSON.stringify(body), "utf8");
    return new Promise((resolve) => {
      const req = send(
        {
          protocol: base.protocol,
          hostname: base.hostname,
          port: base.port,
          path: `${prefix}${path}`,
          method,
          agent,
          timeout: timeoutMs,
          headers: {
            accept: "application/json",
            ...(payload ? { "content-type": "application/json", "content-length": String(payload.length) } : {}),
            ...headers,
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (chunk: Buffer) => chunks.push(chunk));
          res.on("error", (error) => resolve({ ok: false, error: error.message }));
          res.on("end", () => {
            const text = Buffer.concat(chunks).toString("utf8");
            try {
              resolve({
                ok: true,
                status: res.statusCode ?? 0,
                headers: res.headers,
                body: text ? JSON.parse(text) : undefined,
              });
            } catch {
              resolve({ ok: false, error: `answer ${res.statusCode} is not JSON` });
            }
          });
        },
      );
      req.on("timeout", () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
      req.on("error", (error) => resolve({ ok: false, error: error.message }));
      req.end(payload);
    });
  }

  return { request, close: () => agent.destroy() };
}
