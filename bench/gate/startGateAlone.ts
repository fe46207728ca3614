import type { IncomingMessage, Server, ServerResponse } from "node:http";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { pino } from "pino";
import type { Address, Hex } from "viem";
import type { Gate } from "../../services/gate/createGate.ts";
import { createGate } from "../../services/gate/createGate.ts";
import { createSandbox } from "../../services/host/createSandbox.ts";
import { readProcessStat } from "../../services/host/readProcessStat.ts";
import { sampleDeployment } from "../../services/host/samples/sampleDeployment.ts";
import { PLACEHOLDER_AGENT_ID } from "../../services/protocol/constants.ts";
import { startStubFacilitator } from "../../testkit/gate/startStubFacilitator.ts";

/** The gate on its own: the echo sample in workerd, unpaid behind a plain Node server and paid through a gate whose facilitator is a stub. */
export type GateAlone = {
  /** `POST` here runs the echo sandbox with no gate in front. */
  unpaidUrl: string;
  /** `POST` here goes through the gate (every check, no chain, no store). */
  paidUrl: string;
  /**
   * CPU seconds (user + system) used so far by what serves both: this process (the gate, the stub facilitator, the
   * unpaid server) and the echo sandbox's workerd. The load generator runs in a process of its own and is not counted.
   */
  cpuSeconds(): number;
  close(): Promise<void>;
};

export type StartGateAloneParameters = { resourceId: Hex; escrow: Address; token: Address; cap: bigint };

function body(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

function listen(
  handler: (req: IncomingMessage, res: ServerResponse) => Promise<void>,
): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    handler(req, res).catch(() => res.writeHead(500).end());
  });
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () =>
      resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }),
    ),
  );
}

/**
 * Starts the gate alone in this process, with a stub facilitator that accepts every payment and settles at once:
 * what the gate itself costs per call, and the echo sandbox unpaid as the baseline of added latency.
 * @example const alone = await startGateAlone({ resourceId, escrow, token, cap: 50_000n }); ...; await alone.close()
 */
export async function startGateAlone(p: StartGateAloneParameters): Promise<GateAlone> {
  const echo = sampleDeployment("echo", { creator: p.escrow, asset: p.token, escrow: p.escrow });
  const sandbox = await createSandbox({ name: "echo", source: echo.source });
  const stub = await startStubFacilitator();
  const unpaid = await listen(async (req, res) => {
    const rawBody = await body(req);
    const result = await sandbox.handler({
      body: JSON.parse(rawBody.toString()),
      rawBody,
      signal: new AbortController().signal,
      maxResponseBytes: echo.maxResponseBytes,
    });
    res.writeHead(result.status, { "content-type": result.contentType ?? "application/json" }).end(result.body);
  });
  const gates: Gate[] = [];
  const served = await listen(async (req, res) => {
    const gate = gates[0];
    if (gate) gate.callback(req, res);
    else res.writeHead(503).end();
  });
  gates.push(
    createGate({
      resourceId: p.resourceId,
      escrow: p.escrow,
      token: p.token,
      cap: p.cap,
      pricing: {
        base: echo.pricing.base,
        perKB: echo.pricing.perKB,
        computeMultiplier: echo.computeMultiplier,
        maxResponseBytes: echo.maxResponseBytes,
      },
      requestSchema: echo.requestSchema,
      responseSchema: echo.responseSchema,
      card: {
        ...echo.card,
        url: `${served.url}/call`,
        x402: { ...echo.card.x402, payTo: p.resourceId },
        identity: { ...(echo.card as { identity?: object }).identity, agentId: PLACEHOLDER_AGENT_ID },
      },
      callUrl: `${served.url}/call`,
      facilitatorUrl: stub.url,
      handler: sandbox.handler,
      logger: pino({ level: "warn" }),
    }),
  );
  return {
    unpaidUrl: `${unpaid.url}/call`,
    paidUrl: `${served.url}/call`,
    cpuSeconds() {
      const own = process.cpuUsage();
      const pid = sandbox.pid();
      const workerd = pid === undefined ? undefined : readProcessStat(pid);
      if (!workerd) throw new Error("the echo sandbox's workerd is not running");
      return (own.user + own.system) / 1e6 + workerd.cpuSeconds;
    },
    async close() {
      for (const gate of gates) gate.close();
      for (const { server } of [served, unpaid]) server.close();
      await stub.close();
      await sandbox.dispose();
    },
  };
}
