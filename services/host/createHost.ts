import type { IncomingMessage, Server, ServerResponse } from "node:http";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { Logger } from "pino";
import { pino } from "pino";
import type { Hex } from "viem";
import { signCallerToken } from "../protocol/callerToken.ts";
import type { Deployment } from "./createDeploymentStore.ts";
import { createDeploymentStore } from "./createDeploymentStore.ts";
import type { HostOperations } from "./createHostApp.ts";
import { createHostApp } from "./createHostApp.ts";
import { createLiveFields } from "./createLiveFields.ts";
import { SandboxStartError } from "./createSandbox.ts";
import { deploymentRequestSchema } from "./deploymentSchema.ts";
import type { HostContext } from "./hostContext.ts";
import { resourceUrls } from "./hostContext.ts";
import type { HostConfig } from "./loadHostConfig.ts";
import { prepareDeployment } from "./prepareDeployment.ts";
import { servedCard } from "./servedCard.ts";
import type { Resource } from "./startResource.ts";
import { startResource } from "./startResource.ts";

/** A running host: its URL, the live resources by slug, and `stop`. */
export type Host = { url: string; server: Server; resources: Map<string, Resource>; stop(): Promise<void> };

const RESOURCE_PATH = /^\/r\/([a-z0-9]+(?:-[a-z0-9]+)*)(\/[^?#]*)?(\?.*)?$/;

function tokens(secret: string | undefined): HostContext["facilitatorToken"] {
  if (!secret) return () => undefined;
  return (resourceId: Hex) => {
    let cached = { token: "", renewAt: 0 };
    return () => {
      const now = Math.floor(Date.now() / 1000);
      if (now >= cached.renewAt)
        cached = { token: signCallerToken({ resourceId, secret, ttlSeconds: 3600, now }), renewAt: now + 3000 };
      return cached.token;
    };
  };
}

function notFound(res: ServerResponse) {
  res.writeHead(404, { "content-type": "application/json; charset=utf-8", "access-control-allow-origin": "*" });
  res.end(JSON.stringify({ error: { code: "not_found", message: "no resource with this slug" } }));
}

/**
 * Starts the resource host: loads persisted deployments (each in its own workerd sandbox behind its own gate at
 * `/r/{slug}`), then serves them beside the deploy API. Deploys are serialised; a redeploy of a slug by its creator
 * replaces the handler once the new one has started.
 * @example const host = await createHost(loadHostConfig(process.env))
 */
export async function createHost(config: HostConfig, options: { logger?: Logger } = {}): Promise<Host> {
  const logger = options.logger ?? pino({ name: "host", level: config.LOG_LEVEL });
  const store = await createDeploymentStore(config.DATA_DIR);
  const resources = new Map<string, Resource>();
  let loaded = false;
  let queue: Promise<unknown> = Promise.resolve();
  const serial = <T>(work: () => Promise<T>): Promise<T> => {
    const run = queue.then(work, work);
    queue = run.catch(() => undefined);
    return run;
  };

  const live = createLiveFields({
    marketplaceUrl: config.MARKETPLACE_URL,
    intervalMs: config.LIVE_FIELDS_INTERVAL_MS,
    logger,
  });
  const ctx: HostContext = {
    config,
    publicUrl: "",
    logger,
    facilitatorToken: tokens(config.FACILITATOR_AUTH_SECRET),
    liveFields: live.get,
  };

  const retiring = new Set<Resource>();
  const retire = (old: Resource | undefined) => {
    if (!old) return;
    retiring.add(old);
    setTimeout(() => {
      if (retiring.delete(old)) void old.stop();
    }, config.HANDLER_TIMEOUT_MS + 1_000).unref();
  };

  const operations: HostOperations = {
    deploy: (request) =>
      serial(async () => {
        const existing = resources.get(request.slug)?.deployment;
        if (existing && existing.creator !== request.creator) {
          return {
            kind: "refused",
            status: 409,
            code: "slug_taken",
            message: "another creator deployed this slug",
          } as const;
        }
        const prepared = prepareDeployment(ctx, request, existing);
        if (!prepared.ok)
          return { kind: "refused", status: 400, code: "invalid_request", message: prepared.message } as const;
        let resource: Resource;
        try {
          resource = await startResource(ctx, prepared.deployment);
        } catch (error) {
          if (!(error instanceof SandboxStartError)) throw error;
          return { kind: "refused", status: 422, code: "handler_failed", message: error.message } as const;
        }
        try {
          await store.put(prepared.deployment);
        } catch (error) {
          await resource.stop();
          throw error;
        }
        retire(resources.get(request.slug));
        resources.set(request.slug, resource);
        logger.info(
          { slug: request.slug, resourceId: prepared.deployment.resourceId },
          existing ? "redeployed" : "deployed",
        );
        return { kind: "deployed", created: !existing, deployment: prepared.deployment } as const;
      }),
    setIdentity: (slug, agentId) =>
      serial(async () => {
        const resource = resources.get(slug);
        if (!resource) return { kind: "unknown" } as const;
        const deployment: Deployment = { ...resource.deployment, agentId, updatedAt: new Date().toISOString() };
        let card: unknown;
        try {
          card = servedCard(deployment, resourceUrls(ctx, slug).callUrl);
        } catch (error) {
          return { kind: "refused", message: (error as Error).message } as const;
        }
        await store.put(deployment);
        resource.deployment = deployment;
        resource.card = card;
        return { kind: "updated", deployment, card } as const;
      }),
    remove: (slug) =>
      serial(async () => {
        const resource = resources.get(slug);
        if (!resource) return { kind: "unknown" } as const;
        await store.remove(slug);
        resources.delete(slug);
        retire(resource);
        logger.info({ slug, resourceId: resource.deployment.resourceId }, "removed");
        return { kind: "removed", deployment: resource.deployment } as const;
      }),
    list: () => [...resources.values()].map((r) => ({ deployment: r.deployment, restarts: r.sandbox.restarts() })),
    ready: () => loaded,
  };

  const app = createHostApp(ctx, operations);
  const hostCallback = app.callback();
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const match = RESOURCE_PATH.exec(req.url ?? "");
    if (!match) return hostCallback(req, res);
    const resource = resources.get(match[1] ?? "");
    if (!resource) return notFound(res);
    req.url = `${match[2] || "/"}${match[3] ?? ""}`;
    resource.gate.callback(req, res);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(config.PORT, config.HOST, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  ctx.publicUrl = (config.PUBLIC_URL ?? `http://${config.HOST}:${port}`).replace(/\/$/, "");

  await serial(async () => {
    const { deployments, unreadable } = await store.list();
    for (const file of unreadable) logger.error({ file }, "a deployment file is unreadable; skipped");
    for (const stored of deployments) {
      const { resourceId: _id, agentId: _agent, deployedAt: _at, updatedAt: _updated, ...requested } = stored;
      const request = deploymentRequestSchema.safeParse(requested);
      if (!request.success) {
        logger.error({ slug: stored.slug }, "a stored deployment no longer validates; skipped");
        continue;
      }
      try {
        const deployment: Deployment = {
          ...request.data,
          resourceId: stored.resourceId,
          agentId: stored.agentId,
          deployedAt: stored.deployedAt,
          updatedAt: stored.updatedAt,
        };
        resources.set(deployment.slug, await startResource(ctx, deployment));
      } catch (error) {
        logger.error(
          { slug: stored.slug, err: (error as Error).message },
          "a stored deployment did not start; skipped",
        );
      }
    }
  });
  loaded = true;
  logger.info({ url: ctx.publicUrl, resources: resources.size }, "host listening");

  return {
    url: ctx.publicUrl,
    server,
    resources,
    async stop() {
      live.stop();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await queue;
      await Promise.all([...resources.values(), ...retiring].map((r) => r.stop()));
      resources.clear();
      retiring.clear();
    },
  };
}
