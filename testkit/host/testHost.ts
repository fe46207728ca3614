import { pino } from "pino";
import type { Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import type { Host } from "../../services/host/createHost.ts";
import { createHost } from "../../services/host/createHost.ts";
import { loadHostConfig } from "../../services/host/loadHostConfig.ts";
import type { SampleName } from "../../services/host/samples/sampleDeployment.ts";
import { sampleDeployment } from "../../services/host/samples/sampleDeployment.ts";
import { devKey, ROLE } from "../chain/localChain.ts";
import { getJson } from "../facilitator/startFacilitator.ts";
import type { GateStack } from "../gate/gateStack.ts";
import { call, payEscrow, paymentHeader } from "../gate/gateStack.ts";

/** The deploy API token of every test host. */
export const TEST_HOST_TOKEN = "host-token-0123456789abcdef";

/** The seal key of every test host (so that instances sharing a database agree), unless a test sets its own. */
export const TEST_HOST_SEAL_SECRET = "host-seal-secret-0123456789abcdef0123";

/** The `Authorization` header that the deploy API of a test host accepts. */
export const bearer = { authorization: `Bearer ${TEST_HOST_TOKEN}` };

/** The creator of the test deployments (the local chain's creator account). */
export const testCreator = privateKeyToAccount(devKey(ROLE.creator)).address;

/**
 * Starts a host on a free port against the stack's facilitator, escrow and token, with `TEST_HOST_TOKEN`,
 * `TEST_HOST_SEAL_SECRET`, a 5 s handler timeout and a silent logger; `env` adds to or overrides that configuration
 * (`DATA_DIR` is required; `HOST_SEAL_SECRET: undefined` leaves the host to its key file).
 * @example const host = await startTestHost(stack, { DATA_DIR: dir })
 */
export function startTestHost(
  stack: GateStack,
  env: Record<string, string | undefined> & { DATA_DIR: string },
): Promise<Host> {
  return createHost(
    loadHostConfig({
      PORT: "0",
      HOST_TOKEN: TEST_HOST_TOKEN,
      HOST_SEAL_SECRET: TEST_HOST_SEAL_SECRET,
      FACILITATOR_URL: stack.facilitator.url,
      ESCROW_ADDRESS: stack.chain.addresses.escrow,
      TOKEN_ADDRESS: stack.chain.addresses.token,
      HANDLER_TIMEOUT_MS: "5000",
      ...env,
    }),
    { logger: pino({ level: process.env.TEST_HOST_LOG_LEVEL ?? "silent" }) },
  );
}

/**
 * A `POST /deployments` body for a sample by `testCreator`, priced in the stack's token and escrow; `overrides`
 * replaces fields (another slug, source or creator).
 * @example await postJson(`${host.url}/deployments`, sampleBody(stack, 'echo', { slug: 'mine' }), bearer)
 */
export function sampleBody(stack: GateStack, name: SampleName, overrides: Record<string, unknown> = {}) {
  return {
    ...sampleDeployment(name, {
      creator: testCreator,
      asset: stack.chain.addresses.token,
      escrow: stack.chain.addresses.escrow,
    }),
    ...overrides,
  };
}

/**
 * Registers `slug` on chain for `testCreator` with the pricing of a sample, so that its calls can be paid.
 * @example await registerSample(stack, 'echo', 'mine')
 */
export function registerSample(stack: GateStack, name: SampleName, slug: string = name): Promise<Hex> {
  const { pricing } = sampleBody(stack, name);
  return stack.chain.registerResource({
    slug,
    cap: BigInt(pricing.max),
    base: BigInt(pricing.base),
    perKB: BigInt(pricing.perKB),
    creatorIndex: ROLE.creator,
  });
}

/**
 * Pays one call of the stack's buyer to a hosted resource: reads its served card for the resource id, cap and call
 * URL, signs an escrow payment and posts `body`. The answer carries the payment's `idemKey` (its nonce).
 * @example const answer = await payHosted(stack, host.url, 'echo', { hello: 'host' })
 */
export async function payHosted(stack: GateStack, hostUrl: string, slug: string, body: unknown) {
  const card = (await getJson(`${hostUrl}/r/${slug}/.well-known/agent-card.json`)).body;
  const payload = await payEscrow(stack, { resourceId: card.x402.payTo as Hex, cap: BigInt(card.x402.pricing.max) });
  const answer = await call(card.url, body, { "X-PAYMENT": paymentHeader(payload) });
  return { ...answer, idemKey: payload.authorization.nonce as Hex };
}
