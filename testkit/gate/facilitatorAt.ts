import type { IncomingMessage, Server, ServerResponse } from "node:http";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

/** A request as the stand-in saw it: its path, its Authorization header and its JSON body. */
export type Seen = { path: string; authorization: string | undefined; body: any };

/**
 * A facilitator stand-in over a real socket: records every request, answers with `answer`. For the gate's client and
 * link tests (their answers to a status, a body); a test of money runs a real facilitator.
 * @example const { url, seen, server } = await facilitatorAt(() => ({ status: 400, body: { error } }))
 */
export async function facilitatorAt(
  answer: (seen: Seen) => { status: number; body: unknown },
): Promise<{ url: string; seen: Seen[]; server: Server }> {
  const seen: Seen[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const request = {
        path: req.url ?? "",
        authorization: req.headers.authorization,
        body: JSON.parse(Buffer.concat(chunks).toString() || "null"),
      };
      seen.push(request);
      const { status, body } = answer(request);
      res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen, server };
}
