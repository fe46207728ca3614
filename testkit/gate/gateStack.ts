import type { Server } from "node:http";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { pino } from "pino";
import type { Hex, LocalAccount } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { signEscrowPayment, type signExactPayment } from "../../services/buyer/src/sdk/signPayment.ts";
import type { Clock } from "../../services/facilitator/facilitatorContext.ts";
import type { JsonSchema } from "../../services/gate/compileSchema.ts";
import type { Gate } from "../../services/gate/createGate.ts";
import { createGate } from "../../services/gate/createGate.ts";
import type { Handler } from "../../services/gate/handler.ts";
import type { GateConfig } from "../../services/gate/resolveGateConfig.ts";
import type { Sandbox } from "../../services/host/createSandbox.ts";
import { createSandbox } from "../../services/host/createSandbox.ts";
import { sampleDeployment } from "../../services/host/samples/sampleDeployment.ts";
import { encodeBase64Json } from "../../services/protocol/base64.ts";
import { PLACEHOLDER_AGENT_ID } from "../../services/protocol/constants.ts";
import { strikeKeyOf } from "../../services/protocol/strikeKey.ts";
import type { LocalChain } from "../chain/localChain.ts";
import { devKey, ROLE, startLocalChain } from "../chain/localChain.ts";
import { signExactToEscrow } from "../facilitator/signExactToEscrow.ts";
import { postJson, startFacilitator } from "../facilitator/startFacilitator.ts";

/** A local chain with the stack deployed, a funded buyer and a real facilitator. */
export type GateStack = Awaited<ReturnType<typeof startGateStack>>;

/**
 * Starts the local chain, funds the buyer's escrow balance and starts a facilitator against it.
 * @example const stack = await startGateStack(); ...; await stack.close()
 */
export async function startGateStack({
  deposit = 10_000_000n,
  facilitatorEnv = {},
  strikeThreshold,
  clock,
}: {
  deposit?: bigint;
  facilitatorEnv?: Record<string, string>;
  /** The facilitator's clock (a `manualClock` holds its background retries back until it is moved). */
  clock?: Clock;
  /** Strikes before a resource is deactivated (the deployed default is 3). */
  strikeThreshold?: number;
} = {}) {
  const chain: LocalChain = await startLocalChain();
  if (strikeThreshold !== undefined) {
    const registry = chain.contracts.registry;
    await registry.write.setStrikePolicy([
      strikeThreshold,
      await registry.read.slashBps(),
      await registry.read.minBond(),
    ]);
  }
  await chain.fundBuyer(ROLE.buyer, deposit);
  const facilitator = await startFacilitator(chain, { env: facilitatorEnv, clock });
  const buyer = privateKeyToAccount(devKey(ROLE.buyer));
  return {
    chain,
    facilitator,
    buyer,
    escrowBalance: (address: Hex = buyer.address) => chain.contracts.escrow.read.balanceOf([address]),
    /** Whether the registry has struck the payer's call `idemKey` (its `strikeKeyOf(payer, idemKey)`). */
    strikeRecorded: (idemKey: Hex, payer: Hex = buyer.address) =>
      chain.contracts.registry.read.strikeRecorded([strikeKeyOf({ buyer: payer, nonce: idemKey })]),
    /** Whether the facilitator queued a strike with the release of a call (releasing again answers the first release). */
    async strikeQueued(idemKey: Hex, resourceId: Hex, payer: Hex = buyer.address): Promise<boolean> {
      const again = await postJson(`${facilitator.url}/release`, { idemKey, payer, resourceId });
      return (again.body as { strikeRecorded?: unknown }).strikeRecorded === true;
    },
    async close() {
      await facilitator.stop();
      await chain.close();
    },
  };
}

/** Options of a test resource: a handler source (run in workerd) or a handler function, and its terms. */
export type TestResourceOptions = {
  slug: string;
  /** A resource already registered (with these cap and prices): the gate serves a new deployment of it. */
  resourceId?: Hex;
  source?: string;
  handler?: Handler;
  requestSchema?: JsonSchema;
  responseSchema?: JsonSchema;
  /** The creator's declared sample request (default `{}`); a failure is a strike only if it fails too. */
  sampleRequest?: Record<string, unknown>;
  cap?: bigint;
  base?: bigint;
  perKB?: bigint;
  computeMultiplier?: number;
  maxResponseBytes?: number;
  handlerTimeoutMs?: number;
  creatorIndex?: number;
  allowNetwork?: string[];
  gate?: Partial<GateConfig>;
};

const echoSource = sampleDeployment("echo", {
  creator: "0x0000000000000000000000000000000000000000",
  asset: "",
  escrow: "",
}).source;

/**
 * Registers a resource on chain and serves a gate for it on a free port, in front of a workerd sandbox running
 * `source` (the echo sample by default). `runs()` counts handler invocations.
 * @example const resource = await startTestResource(stack, { slug: 'echo' })
 */
export async function startTestResource(stack: GateStack, options: TestResourceOptions) {
  const cap = options.cap ?? 50_000n;
  const base = options.base ?? 1_000n;
  const perKB = options.perKB ?? 200n;
  const resourceId =
    options.resourceId ??
    (await stack.chain.registerResource({
      slug: options.slug,
      cap,
      base,
      perKB,
      creatorIndex: options.creatorIndex,
    }));
  const sandbox: Sandbox | undefined = options.handler
    ? undefined
    : await createSandbox({
        name: options.slug,
        source: options.source ?? echoSource,
        allowNetwork: options.allowNetwork,
      });
  const inner = options.handler ?? sandbox!.handler;
  let runs = 0;
  const handler: Handler = (call) => {
    runs++;
    return inner(call);
  };
  let gate: Gate | undefined;
  const server: Server = createServer((req, res) => gate!.callback(req, res));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const pricing = { model: "metered" as const, base: base.toString(), perKB: perKB.toString(), max: cap.toString() };
  const template = sampleDeployment("echo", {
    creator: stack.buyer.address,
    asset: stack.chain.addresses.token,
    escrow: stack.chain.addresses.escrow,
  }).card;
  const card = {
    ...template,
    url: `${url}/call`,
    x402: { ...template.x402, pricing, payTo: resourceId },
    identity: { ...((template as Record<string, unknown>).identity as object), agentId: PLACEHOLDER_AGENT_ID },
  };
  gate = createGate({
    resourceId,
    escrow: stack.chain.addresses.escrow,
    token: stack.chain.addresses.token,
    cap,
    pricing: {
      base: pricing.base,
      perKB: pricing.perKB,
      computeMultiplier: options.computeMultiplier ?? 1,
      maxResponseBytes: options.maxResponseBytes ?? 65_536,
    },
    requestSchema: options.requestSchema ?? { type: "object" },
    responseSchema: options.responseSchema ?? { type: "object" },
    sampleRequest: options.sampleRequest,
    card,
    callUrl: `${url}/call`,
    facilitatorUrl: stack.facilitator.url,
    handlerTimeoutMs: options.handlerTimeoutMs ?? 10_000,
    handler,
    ready: sandbox?.ready,
    logger: pino({ level: "silent" }),
    ...options.gate,
  });
  return {
    url,
    callUrl: `${url}/call`,
    resourceId,
    cap,
    gate,
    sandbox,
    runs: () => runs,
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      gate!.close();
      await sandbox?.dispose();
    },
  };
}

/** A started test resource. */
export type TestResource = Awaited<ReturnType<typeof startTestResource>>;

/** Signs an escrow payment for a resource, valid for ten minutes unless told otherwise. */
export function payEscrow(
  stack: GateStack,
  resource: { resourceId: Hex; cap: bigint },
  overrides: Partial<Parameters<typeof signEscrowPayment>[0]> = {},
) {
  return signEscrowPayment({
    account: stack.buyer,
    escrow: stack.chain.addresses.escrow,
    resourceId: resource.resourceId,
    maxAmount: resource.cap,
    validBefore: BigInt(Math.floor(Date.now() / 1000) + 600),
    ...overrides,
  });
}

/** Signs an exact (EIP-3009) payment of the cap to the escrow. */
export function payExact(
  stack: GateStack,
  resource: { cap: bigint },
  overrides: Partial<Parameters<typeof signExactPayment>[0]> = {},
) {
  return signExactToEscrow(stack.chain, { account: stack.buyer, value: resource.cap, ...overrides });
}

/** The `X-PAYMENT` value of a payload. */
export const paymentHeader = (payload: unknown) => encodeBase64Json(payload);

/** POSTs to a gate and returns status, headers and the parsed body (or the raw text). */
export async function call(url: string, body: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: typeof body === "string" || body instanceof Uint8Array ? body : JSON.stringify(body),
  });
  const text = await response.text();
  let json: any = text;
  try {
    json = JSON.parse(text);
  } catch {}
  return { status: response.status, headers: response.headers, body: json, text };
}

/** An account with no funds. */
export function poorAccount(): LocalAccount {
  return privateKeyToAccount(devKey(ROLE.other));
}
