import type { Agent, ClientRequest } from "node:http";
import { request as httpRequest } from "node:http";
import type { HandlerCall, HandlerResult } from "../gate/handler.ts";
import { SANDBOX_KEY_HEADER, SANDBOX_UNLOADED_HEADER } from "./shardDispatcher.ts";

/**
 * Whether a failed request may be sent again: it went out on a kept-alive socket that the sandbox had already
 * closed (the reset arrives before any answer), so the handler never saw it. Node's documented keep-alive race.
 */
function isStaleSocket(req: ClientRequest, error: NodeJS.ErrnoException, answered: boolean): boolean {
  return req.reusedSocket && !answered && (error.code === "ECONNRESET" || error.code === "EPIPE");
}

/**
 * POSTs one call for the handler `key` to a shard's `/call` over `agent` and reads at most `maxResponseBytes` of the
 * answer (then marks it truncated); undefined when the shard does not hold that handler (nothing ran). A request
 * lost to a stale kept-alive socket is sent once more; any other failure rejects.
 * @example const result = await callSandbox(agent, new URL('/call', url), 'echo.1', call)
 */
export function callSandbox(
  agent: Agent,
  url: URL,
  key: string,
  call: HandlerCall,
  retried = false,
): Promise<HandlerResult | undefined> {
  return new Promise((resolve, reject) => {
    let answered = false;
    const req = httpRequest(url, {
      method: "POST",
      agent,
      signal: call.signal,
      headers: {
        "content-type": "application/json",
        "content-length": String(call.rawBody.length),
        [SANDBOX_KEY_HEADER]: key,
      },
    });
    req.on("response", (res) => {
      answered = true;
      if (res.headers[SANDBOX_UNLOADED_HEADER]) {
        res.resume();
        return resolve(undefined);
      }
      const chunks: Buffer[] = [];
      let size = 0;
      let truncated = false;
      const finish = () =>
        resolve({
          status: res.statusCode ?? 0,
          contentType: res.headers["content-type"],
          body: Buffer.concat(chunks),
          truncated,
        });
      res.on("data", (chunk: Buffer) => {
        if (truncated) return;
        size += chunk.length;
        chunks.push(chunk);
        if (size > call.maxResponseBytes) {
          truncated = true;
          res.destroy();
          finish();
        }
      });
      res.on("end", finish);
      res.on("error", (error) => (truncated ? undefined : reject(error)));
    });
    req.on("error", (error: NodeJS.ErrnoException) => {
      if (!retried && !call.signal.aborted && isStaleSocket(req, error, answered))
        resolve(callSandbox(agent, url, key, call, true));
      else reject(error);
    });
    req.end(call.rawBody);
  });
}
