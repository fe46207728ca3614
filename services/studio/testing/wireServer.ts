import type { IncomingMessage, Server } from "node:http";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

/** One recorded answer a wire server replays: status, headers, a JSON or raw body, or no answer at all. */
export type RecordedAnswer = {
  status?: number;
  headers?: Record<string, string>;
  json?: unknown;
  raw?: string;
  hang?: true;
};

/** A request the wire server received: method, path, headers and JSON body. */
export type ReceivedRequest = {
  method: string;
  path: string;
  headers: IncomingMessage["headers"];
  body: Record<string, any>;
};

/**
 * A loopback HTTP server that speaks a model API's wire format for tests: it records every request and replays the
 * recorded answers in order (the last one repeats).
 * @example const wire = await startWireServer([{ json: { choices: [...] } }]); … wire.requests[0].headers
 */
export async function startWireServer(answers: RecordedAnswer[]) {
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
      requests.push({ method: req.method ?? "", path: req.url ?? "", headers: req.headers, body });
      const answer = answers[Math.min(requests.length - 1, answers.length - 1)] ?? { status: 500 };
      if (answer.hang) {
        hanging.add(() => res.destroy());
        return;
      }
      res.writeHead(answer.status ?? 200, { "content-type": "application/json", ...answer.headers });
      res.end(answer.raw ?? JSON.stringify(answer.json ?? {}));
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
    async serve(answers: RecordedAnswer[]) {
      const wire = await startWireServer(answers);
      servers.push(wire);
      return { wire, provider: build(wire.url) };
    },
    async closeAll() {
      await Promise.all(servers.splice(0).map((s) => s.close()));
    },
  };
}
