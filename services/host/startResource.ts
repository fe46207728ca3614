import type { Gate } from "../gate/createGate.ts";
import { createGate } from "../gate/createGate.ts";
import type { Handler } from "../gate/handler.ts";
import type { GateConfig } from "../gate/resolveGateConfig.ts";
import { withLiveFields } from "../protocol/liveCardFields.ts";
import type { Deployment } from "./createDeploymentStore.ts";
import type { Sandbox } from "./createSandbox.ts";
import { createSandbox } from "./createSandbox.ts";
import type { HostContext } from "./hostContext.ts";
import { resourceUrls } from "./hostContext.ts";
import { servedCard } from "./servedCard.ts";

/** A live resource: its deployment, sandbox, gate and current card. */
export type Resource = {
  deployment: Deployment;
  sandbox: Sandbox;
  gate: Gate;
  card: unknown;
  stop(): Promise<void>;
};

/**
 * The gate configuration of a deployment: money fields from the host's trusted configuration (escrow, token) and
 * the deployment's pricing, never from a request.
 */
export function gateConfigOf(
  ctx: HostContext,
  deployment: Deployment,
  handler: Handler,
  current: () => unknown,
  ready?: () => Promise<boolean>,
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
    handlerTimeoutMs: ctx.config.HANDLER_TIMEOUT_MS,
    handler,
    ready,
    logger: ctx.logger.child({ resource: deployment.slug }),
  };
}

/**
 * Starts a deployment: its sandbox (workerd), then its gate in front of it.
 * @throws {SandboxStartError | GateConfigError}
 * @example const resource = await startResource(ctx, deployment)
 */
export async function startResource(ctx: HostContext, deployment: Deployment): Promise<Resource> {
  const sandbox = await createSandbox({
    name: deployment.slug,
    source: deployment.source,
    allowNetwork: deployment.allowNetwork,
    memory: { heapMb: ctx.config.SANDBOX_HEAP_MB, dataLimitMb: ctx.config.SANDBOX_DATA_LIMIT_MB },
    watchdog: {
      tickMs: ctx.config.SANDBOX_WATCHDOG_INTERVAL_MS,
      idleCpuMs: ctx.config.SANDBOX_IDLE_CPU_MS,
      healthIntervalMs: ctx.config.SANDBOX_HEALTH_INTERVAL_MS,
      probeTimeoutMs: ctx.config.HANDLER_TIMEOUT_MS,
    },
    logger: ctx.logger,
  });
  try {
    const resource = {
      deployment,
      sandbox,
      card: servedCard(deployment, resourceUrls(ctx, deployment.slug).callUrl),
    } as Resource;
    const current = () => withLiveFields(resource.card, ctx.liveFields(deployment.resourceId));
    resource.gate = createGate(gateConfigOf(ctx, deployment, sandbox.handler, current, sandbox.ready));
    resource.stop = async () => {
      resource.gate.close();
      await sandbox.dispose();
    };
    return resource;
  } catch (error) {
    await sandbox.dispose();
    throw error;
  }
}
