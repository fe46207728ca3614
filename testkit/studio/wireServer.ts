import type { IncomingMessage, Server } from "node:http";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * One recorded answer a wire server replays: status, headers, a JSON or raw body; or no answer at all (`hang`); or
 * the headers and the first `cut` bytes of the body, then the socket closed (a server that dies while answering).
 */
export type RecordedAnswer = {
  status?: number;
  headers?: Record<string, string>;
  json?: unknown;
  raw?: string;
  hang?: true;
  cut?: number;
};

/** A request the wire server received: method, path, headers and JSON body. */
export type ReceivedRequest = {
  method: string;
  path: string;
  headers: IncomingMessage["headers"];
  body: Record<string, any>;
};

/** What a wire server answers: a recorded answer, or one chosen from the request, as a real server would. */
export type WireAnswer = RecordedAnswer | ((request: ReceivedRequest) => RecordedAnswer);

/**
 * A loopback HTTP server that speaks a model API's wire format for tests: it records every request and replays the
 * answers in order (the last one repeats); an answer may be a function of the request.
 * @example const wire = await startWireServer([{ json: { choices: [...] } }]); … wire.requests[0].headers
 */
export async function startWireServer(answers: WireAnswer[]) {
  const requests: ReceivedRequest[] = [];
  const hanging = new Set<() => void>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      let body: Record<string, any> = {};
      try {
        body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
      } catch {}
      const request = { method: req.method ?? "", path: req.url ?? "", headers: req.headers, body };
      requests.push(request);
      const next = answers[Math.min(requests.length - 1, answers.length - 1)] ?? { status: 500 };
      const answer = typeof next === "function" ? next(request) : next;
      if (answer.hang) {
        hanging.add(() => res.destroy());
        return;
      }
      const text = answer.raw ?? JSON.stringify(answer.json ?? {});
      const contentType = answer.raw === undefined ? "application/json" : "text/plain; charset=utf-8";
      res.writeHead(answer.status ?? 200, {
        "content-type": contentType,
        "content-length": String(Buffer.byteLength(text)),
        ...answer.headers,
      });
      if (answer.cut === undefined) res.end(text);
      else res.write(text.slice(0, answer.cut), () => res.destroy());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    async close() {
      for (const end of hanging) end();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/**
 * Wire servers for one test file, each with the provider built on it; `closeAll` (in `afterEach`) stops them.
 * @example const wires = wireProviders((url) => openaiProvider({ url })); const { wire, provider } = await wires.serve(answers)
 */
export function wireProviders<P>(build: (url: string) => P) {
  const servers: { close(): Promise<void> }[] = [];
  return {
    async serve(answers: WireAnswer[]) {
      const wire = await startWireServer(answers);
      servers.push(wire);
      return { wire, provider: build(wire.url) };
    },
    async closeAll() {
      await Promise.all(servers.splice(0).map((s) => s.close()));
    },
  };
}
