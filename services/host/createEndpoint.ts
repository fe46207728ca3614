import { createHash } from "node:crypto";
import type { Gate } from "../gate/createGate.ts";
import { createGate } from "../gate/createGate.ts";
import { withLiveFields } from "../protocol/liveCardFields.ts";
import type { Deployment, StoredDeployment } from "./createDeploymentStore.ts";
import type { PooledHandler, SandboxPool } from "./createSandboxPool.ts";
import { gateConfigOf } from "./gateConfigOf.ts";
import type { HostContext } from "./hostContext.ts";
import { resourceUrls } from "./hostContext.ts";
import { servedCard } from "./servedCard.ts";

/** A deployment as one host instance serves it: its handler in the sandbox pool, its card, and its gate. */
export type Endpoint = {
  deployment: Deployment;
  version: number;
  /** The handler as the pool knows it: its key changes only when its code or network does. */
  sandbox: PooledHandler;
  card: unknown;
  /** The endpoint's gate, built from configuration on first use (no sandbox needed, not even for a quote). */
  gate(): Gate;
  close(): void;
};

/**
 * A deployment's handler as the sandbox pool runs it, keyed by its slug and a digest of its source and network
 * allow-list (so a redeploy of the same code keeps its loaded isolate).
 * @example pooledHandler(deployment).key // 'echo.3f9a0c51d2e4b6a8'
 */
export function pooledHandler(deployment: Deployment): PooledHandler {
  const digest = createHash("sha256")
    .update(JSON.stringify([deployment.source, deployment.allowNetwork ?? []]))
    .digest("hex");
  return {
    key: `${deployment.slug}.${digest.slice(0, 16)}`,
    name: deployment.slug,
    source: deployment.source,
    allowNetwork: deployment.allowNetwork,
  };
}

/**
 * Makes the endpoint of a stored deployment: its served card now (so a card that does not validate is refused here),
 * its gate on the first request that needs it, its handler loaded by the pool on its first call, its sample request
 * run alone (`SandboxPool.alone`).
 * @throws {SchemaValidationError} when the finalized card does not validate.
 * @example const endpoint = createEndpoint(ctx, pool, stored); endpoint.gate().callback(req, res)
 */
export function createEndpoint(ctx: HostContext, pool: SandboxPool, stored: StoredDeployment): Endpoint {
  const { deployment } = stored;
  const sandbox = pooledHandler(deployment);
  let gate: Gate | undefined;
  const endpoint: Endpoint = {
    deployment,
    version: stored.version,
    sandbox,
    card: servedCard(deployment, resourceUrls(ctx, deployment.slug).callUrl),
    gate() {
      gate ??= createGate(
        gateConfigOf(
          ctx,
          endpoint.deployment,
          pool.handler(sandbox),
          () => withLiveFields(endpoint.card, ctx.liveFields(endpoint.deployment.resourceId)),
          {
            ready: () => pool.ready(sandbox.key),
            alone: (work, deadline) =>
              pool.alone(sandbox, work, AbortSignal.timeout(Math.max(0, deadline - Date.now()))),
          },
        ),
      );
      return gate;
    },
    close: () => gate?.close(),
  };
  return endpoint;
}
