import type { Handler } from "../gate/handler.ts";
import type { AloneRunner, GateConfig } from "../gate/resolveGateConfig.ts";
import type { Deployment } from "./createDeploymentStore.ts";
import type { HostContext } from "./hostContext.ts";
import { resourceUrls } from "./hostContext.ts";

/**
 * The gate configuration of a deployment: money fields from the host's trusted configuration (escrow, token) and
 * the deployment's pricing, never from a request; the host's bound on each endpoint's calls in progress; where the
 * handler's code runs alone (its sample request, see `GateConfig.alone`).
 * @example const config = gateConfigOf(ctx, deployment, handler, () => card, { ready, alone })
 */
export function gateConfigOf(
  ctx: HostContext,
  deployment: Deployment,
  handler: Handler,
  current: () => unknown,
  sandbox: { ready?: () => Promise<boolean>; alone?: AloneRunner } = {},
): GateConfig {
  return {
    resourceId: deployment.resourceId,
    escrow: ctx.config.ESCROW_ADDRESS,
    token: ctx.config.TOKEN_ADDRESS,
    cap: deployment.pricing.max,
    pricing: {
      base: deployment.pricing.base,
      perKB: deployment.pricing.perKB,
      computeMultiplier: deployment.computeMultiplier,
      maxResponseBytes: deployment.maxResponseBytes,
    },
    requestSchema: deployment.requestSchema,
    responseSchema: deployment.responseSchema,
    sampleRequest: deployment.sampleRequest,
    card: current,
    callUrl: resourceUrls(ctx, deployment.slug).callUrl,
    facilitatorUrl: ctx.config.FACILITATOR_URL,
    facilitatorToken: ctx.facilitatorToken(deployment.resourceId),
    maxTimeoutSeconds: ctx.config.MAX_TIMEOUT_SECONDS,
    authorizationSeconds: ctx.config.AUTHORIZATION_SECONDS,
    handlerTimeoutMs: ctx.config.HANDLER_TIMEOUT_MS,
    maxConcurrentCalls: ctx.config.ENDPOINT_MAX_CONCURRENT_CALLS,
    handler,
    ready: sandbox.ready,
    alone: sandbox.alone,
    logger: ctx.logger.child({ resource: deployment.slug }),
  };
}
