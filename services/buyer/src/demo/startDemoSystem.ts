import type { Server } from "node:http";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { pino } from "pino";
import type { Hex } from "viem";
import { createPublicClient, getContractAddress, http } from "viem";
import { privateKeyToAddress } from "viem/accounts";
import { fiatTokenSetup } from "../../../../ignition/modules/fiatTokenSetup.ts";
import type { Facilitator } from "../../../facilitator/createFacilitator.ts";
import { createFacilitator } from "../../../facilitator/createFacilitator.ts";
import { loadFacilitatorConfig } from "../../../facilitator/loadFacilitatorConfig.ts";
import type { Gate } from "../../../gate/createGate.ts";
import { createGate } from "../../../gate/createGate.ts";
import type { Handler } from "../../../gate/handler.ts";
import echoSpec from "../../../host/samples/echo.json" with { type: "json" };
// @ts-expect-error the sample is plain JavaScript written for workerd, without declarations; its shape is asserted below
import echoSample from "../../../host/samples/echo.mjs";
import { keepIdleConnections } from "../../../http/keepIdleConnections.ts";
import { abiOf } from "../../../protocol/artifacts.ts";
import { serviceChain } from "../../../protocol/chain.ts";
import { finalizeCard } from "../../../protocol/schemas/card.ts";
import type { IndexRecord } from "../../../protocol/schemas/indexRecord.ts";
import { DEMO_KEYS } from "./demoKeys.ts";
import { DEMO_PORT } from "./demoPort.ts";
import type { DemoContracts, DemoKeys } from "./deployDemoContracts.ts";
import { deployDemoContracts, fundDemoBuyer, LOCAL_CHAIN, registerDemoResource } from "./deployDemoContracts.ts";
import { indexRecordOf } from "./indexRecordOf.ts";
import type { DemoChain } from "./startDemoChain.ts";
import { startDemoChain } from "./startDemoChain.ts";

/** The running demo: where the tools point, the ephemeral buyer's key (memory only), and `close`. */
export type DemoSystem = {
  rpcUrl: string;
  escrow: Hex;
  marketplaceUrl: string;
  facilitatorUrl: string;
  buyerKey: Hex;
  resourceId: Hex;
  contracts: DemoContracts;
  close(): Promise<void>;
};

/** What the demo buyer gets in escrow: 10 test USDC. */
export const DEMO_DEPOSIT = 10_000_000n;

const echoModule = echoSample as { fetch(request: Request): Promise<Response> };

/** The echo sample's own module, run in this process behind the real gate (see the README for why not workerd). */
const echoHandler: Handler = async (call) => {
  const response = await echoModule.fetch(
    new Request("http://demo.invalid/", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: new Uint8Array(call.rawBody),
      signal: call.signal,
    }),
  );
  return {
    status: response.status,
    contentType: response.headers.get("content-type") ?? undefined,
    body: Buffer.from(await response.arrayBuffer()),
  };
};

/** Listens on 127.0.0.1:`port` (any free port when 0, or when `port` is taken, said through `log`). */
async function listenLoopback(server: Server, port = 0, log: (line: string) => void = () => {}): Promise<string> {
  keepIdleConnections(server);
  const listenOn = (at: number) =>
    new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(at, "127.0.0.1", () => {
        server.off("error", reject);
        resolve();
      });
    });
  try {
    await listenOn(port);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EADDRINUSE" || port === 0) throw error;
    await listenOn(0);
    log(
      `service-buyer: the demo's port ${port} is taken; serving it on ${(server.address() as AddressInfo).port} instead`,
    );
  }
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function closeServer(server: Server) {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

export type StartDemoSystemParameters = {
  /** Where the echo resource is served (default {@link DEMO_PORT}; 0 for any free port). */
  port?: number;
  /** Where notes about the start go (a port taken, say). */
  log?: (line: string) => void;
};

/**
 * Starts the whole escrow loop in this process, on loopback only, with nothing written to disk: an EDR chain with
 * the real contracts, the real facilitator on an in-memory PGlite store, the real gate in front of the echo sample,
 * a one-route index of what is registered on chain, and an ephemeral buyer funded in escrow. Everything a buyer sees
 * is the same at every start: keys, contract addresses, ids, prices, the card (served on `port`) and balances.
 * @example const demo = await startDemoSystem(); ...; await demo.close()
 */
export async function startDemoSystem({ port = DEMO_PORT, log }: StartDemoSystemParameters = {}): Promise<DemoSystem> {
  const keys = DEMO_KEYS;
  const closers: (() => Promise<void>)[] = [];
  const close = async () => {
    for (const closer of closers.reverse()) await closer().catch(() => {});
  };
  try {
    const chain: DemoChain = await startDemoChain(Object.values(keys));
    closers.push(() => chain.close());
    // The addresses are known before deployment (from the admin's nonces), so the facilitator, whose embedded
    // store takes most of the start, starts while the contracts are deployed.
    const expected = demoContractAddresses(keys);
    const logger = pino({ level: "silent" });
    const starting = createFacilitator(
      loadFacilitatorConfig({
        PORT: "0",
        HOST: "127.0.0.1",
        // Like the embedded stack: every part of the demo listens on loopback only, where caller auth may be off.
        CALLER_AUTH: "off",
        RPC_URL: chain.rpcUrl,
        ESCROW_ADDRESS: expected.escrow,
        REGISTRY_ADDRESS: expected.registry,
        TOKEN_ADDRESS: expected.token,
        RELAYER_KEYS: keys.relayer,
        DATA_DIR: "memory://",
        BATCH_WINDOW_MS: "5",
        // The demo's buyer verifies each debit on chain as it goes: committed debits go out at once, not held until
        // their batch pays for itself.
        HOLD_MAX_SECONDS: "0",
        // One node mining a block per transaction: a margin would keep a deposit just made from the escrow book.
        ESCROW_BOOK_MARGIN_BLOCKS: "0",
        LOG_LEVEL: "silent",
      }),
      { logger },
    );
    closers.push(async () => (await starting).stop());
    const contracts = await deployDemoContracts(chain.rpcUrl, keys);
    if (
      contracts.escrow !== expected.escrow ||
      contracts.registry !== expected.registry ||
      contracts.token !== expected.token
    )
      throw new Error("the demo contracts were not deployed at their expected addresses");
    const facilitator: Facilitator = await starting;

    let gate: Gate | undefined;
    const gateServer = createServer((req, res) => {
      if (gate) gate.callback(req, res);
      else res.writeHead(503).end();
    });
    const resourceUrl = await listenLoopback(gateServer, port, log);
    closers.push(() => closeServer(gateServer));
    const cardUri = `${resourceUrl}/.well-known/agent-card.json`;
    const pricing = echoSpec.pricing;
    const { resourceId, card } = await registerDemoResource(chain.rpcUrl, keys.creator, contracts, {
      slug: "echo",
      category: "tools",
      pricing: { base: BigInt(pricing.base), perKB: BigInt(pricing.perKB), max: BigInt(pricing.max) },
      cardUri,
      card: ({ resourceId, agentId }) =>
        finalizeCard(
          {
            ...echoSpec.card,
            x402: { ...echoSpec.card.x402, asset: contracts.token, escrow: contracts.escrow },
          } as never,
          { callUrl: `${resourceUrl}/call`, resourceId, agentId },
        ),
    });
    gate = createGate({
      resourceId,
      escrow: contracts.escrow,
      token: contracts.token,
      cap: pricing.max,
      pricing: {
        base: pricing.base,
        perKB: pricing.perKB,
        computeMultiplier: echoSpec.computeMultiplier,
        maxResponseBytes: echoSpec.maxResponseBytes,
      },
      requestSchema: echoSpec.requestSchema,
      responseSchema: echoSpec.responseSchema,
      sampleRequest: echoSpec.sampleRequest,
      card,
      callUrl: `${resourceUrl}/call`,
      facilitatorUrl: facilitator.url,
      handler: echoHandler,
      logger,
    });
    const openGate = gate;
    closers.push(async () => openGate.close());

    const indexServer = createServer((req, res) => {
      const send = (status: number, body: unknown, headers: Record<string, string> = {}) =>
        res.writeHead(status, { "content-type": "application/json", ...headers }).end(JSON.stringify(body));
      if (req.method !== "GET" || !req.url?.startsWith("/resources"))
        return send(404, { error: { code: "not_found", message: "the demo index serves GET /resources only" } });
      demoIndex(chain.rpcUrl, contracts, [{ resourceId, cardUri }]).then(
        (records) => send(200, records, { "x-total-count": String(records.length) }),
        (error: Error) => send(503, { error: { code: "chain_unavailable", message: error.message.split("\n")[0] } }),
      );
    });
    const marketplaceUrl = await listenLoopback(indexServer);
    closers.push(() => closeServer(indexServer));

    await fundDemoBuyer(chain.rpcUrl, keys, contracts, DEMO_DEPOSIT);
    return {
      rpcUrl: chain.rpcUrl,
      escrow: contracts.escrow,
      marketplaceUrl,
      facilitatorUrl: facilitator.url,
      buyerKey: keys.buyer,
      resourceId,
      contracts,
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

/** Where {@link deployDemoContracts} puts the contracts: the admin's first four deployments, in its order. */
function demoContractAddresses(keys: DemoKeys) {
  const from = privateKeyToAddress(keys.admin);
  const at = (nonce: number) => getContractAddress({ from, nonce: BigInt(nonce) });
  // deployDemoContracts' transactions, in order: the token's SignatureChecker library, the token, its setup calls,
  // then the identity registry, the resource registry and the escrow.
  const identity = 2 + fiatTokenSetup(from, from).length;
  return { token: at(1), identity: at(identity), registry: at(identity + 1), escrow: at(identity + 2) };
}

/** The demo's index: one strict record per registered resource, read from the chain (display data only). */
async function demoIndex(
  rpcUrl: string,
  contracts: DemoContracts,
  listed: { resourceId: Hex; cardUri: string }[],
): Promise<IndexRecord[]> {
  const client = createPublicClient({ chain: serviceChain(rpcUrl), transport: http(rpcUrl, LOCAL_CHAIN) });
  return Promise.all(
    listed.map(async ({ resourceId }) => {
      const r = await client.readContract({
        address: contracts.registry,
        abi: abiOf("ResourceRegistry"),
        functionName: "getResource",
        args: [resourceId],
      });
      return indexRecordOf(resourceId, r);
    }),
  );
}
