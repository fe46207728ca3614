import type { IncomingMessage } from "node:http";
import type Koa from "koa";
import { HttpError } from "./httpError.ts";
import { nestedDeeperThan } from "./jsonDepth.ts";

declare module "koa" {
  interface Request {
    /** The JSON body `jsonBody` read, untrusted until a schema has parsed it. */
    body?: unknown;
  }
}

const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;

/**
 * Whether a request's body is content-encoded (gzip, br, …): no route decodes one, so each refuses it with 415 (RFC
 * 9110, 15.5.16) rather than reading compressed bytes as JSON. `identity`, in any case, is no encoding.
 * @example if (isContentEncoded(req.headers)) return reply(415)
 */
export function isContentEncoded(headers: IncomingMessage["headers"]): boolean {
  const coding = headers["content-encoding"]?.trim().toLowerCase();
  return coding !== undefined && coding !== "" && coding !== "identity";
}

/**
 * A request's JSON body of at most `maxBytes`, refused as every route refuses one: 415 when it is not JSON by its
 * content type or is content-encoded, 413 over `maxBytes` (declared or sent; the caller closes the connection when the
 * body was not read whole), 400 when it is not JSON, nests deeper than `maxDepth` (when given), or did not arrive
 * whole. Parsed with JSON.parse, so a key named
 * `__proto__` is data like any other (a handler's response may hold one): every reader takes the body through a zod
 * schema, which never copies that key onto an object, or passes it on as JSON.
 * @example const body = await readJsonBody(req, { maxBytes: 1_048_576, what: "a batch" })
 */
export function readJsonBody(
  req: IncomingMessage,
  p: { maxBytes: number; what: string; maxDepth?: number | undefined },
): Promise<unknown> {
  return new Promise((resolve, reject) => {
    if (!JSON_TYPE.test(req.headers["content-type"] ?? ""))
      return reject(new HttpError(415, "unsupported_media_type", `${p.what} is JSON (content-type application/json)`));
    if (isContentEncoded(req.headers))
      return reject(new HttpError(415, "unsupported_media_type", `${p.what} is sent without content-encoding`));
    const tooBig = () => new HttpError(413, "payload_too_large", `${p.what} is at most ${p.maxBytes} bytes of JSON`);
    if (Number(req.headers["content-length"] ?? 0) > p.maxBytes) return reject(tooBig());
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= p.maxBytes) return void chunks.push(chunk);
      req.off("data", onData);
      reject(tooBig());
    };
    req.on("data", onData);
    // A client gone before its body arrived whole: refused as unread (nothing ran), not an internal error.
    const unread = () => reject(new HttpError(400, "invalid_request", `${p.what} was not received whole`));
    req.once("error", unread);
    req.once("close", () => req.complete || unread());
    req.once("end", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      // Deeper than the API's shape: JSON.parse takes it, but what walks it later (JSON.stringify, a schema) may not.
      if (p.maxDepth !== undefined && nestedDeeperThan(text, p.maxDepth))
        return reject(
          new HttpError(400, "invalid_request", `${p.what} nests arrays and objects deeper than ${p.maxDepth}`),
        );
      try {
        resolve(JSON.parse(text));
      } catch (error) {
        reject(new HttpError(400, "invalid_request", `${p.what} is not JSON: ${(error as Error).message}`));
      }
    });
  });
}

/**
 * Koa middleware: a POST's JSON body (readJsonBody) as `koa.request.body`; a body left unread closes the connection.
 * An API whose bodies have a shape of their own passes `maxDepth` (MAX_BODY_DEPTH); one that carries a handler's
 * answers (the facilitator's settlements) does not, since an answer may nest as deep as its schema allows.
 * @example app.use(jsonBody({ maxBytes: 262_144, maxDepth: MAX_BODY_DEPTH }))
 */
export function jsonBody(p: { maxBytes: number; maxDepth?: number }): Koa.Middleware {
  return async (koa, next) => {
    if (koa.method === "POST") {
      try {
        koa.request.body = await readJsonBody(koa.req, {
          maxBytes: p.maxBytes,
          maxDepth: p.maxDepth,
          what: "a request body",
        });
      } catch (error) {
        if (!koa.req.complete) koa.set("connection", "close");
        throw error;
      }
    }
    await next();
  };
}
