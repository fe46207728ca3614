import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import type { Logger } from "pino";
import { pino } from "pino";
import type { Hex } from "viem";
import { createJsonServer } from "../http/createJsonServer.ts";
import { sendJson } from "../http/sendJson.ts";
import { signCallerToken } from "../protocol/callerToken.ts";
import type { Deployment, DeploymentStore, StoredDeployment } from "./createDeploymentStore.ts";
import { createDeploymentStore } from "./createDeploymentStore.ts";
import type { Endpoint } from "./createEndpoint.ts";
import { createEndpoint, pooledHandler } from "./createEndpoint.ts";
import type { HostOperations } from "./createHostApp.ts";
import { createHostApp } from "./createHostApp.ts";
import { createLiveFields } from "./createLiveFields.ts";
import type { SandboxPool } from "./createSandboxPool.ts";
import { createSandboxPool } from "./createSandboxPool.ts";
import { SandboxStartError } from "./createShard.ts";
import { deploymentRequestSchema } from "./deploymentSchema.ts";
import type { HostContext } from "./hostContext.ts";
import { resourceUrls } from "./hostContext.ts";
import { importJsonDeployments } from "./importJsonDeployments.ts";
import type { HostConfig } from "./loadHostConfig.ts";
import { prepareDeployment } from "./prepareDeployment.ts";
import { readSealKey, SEAL_KEY_FILE } from "./readSealKey.ts";
import { servedCard } from "./servedCard.ts";
import { slowExampleProblem } from "./slowExampleProblem.ts";

/** A running host: its URL, the endpoints it serves by slug, its sandbox pool and store, and `stop`. */
export type Host = {
  url: string;
  server: Server;
  endpoints: Map<string, Endpoint>;
  pool: SandboxPool;
  deployments: DeploymentStore;
  stop(): Promise<void>;
};

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

function answer(res: ServerResponse, status: number, code: string, message: string) {
  sendJson(res, status, { error: { code, message } }, { "access-control-allow-origin": "*" });
}

/** Whether two deployments differ in nothing but the agent id and the time of the write. */
function sameButIdentity(a: Deployment, b: Deployment): boolean {
  const { agentId: _a, updatedAt: _b, ...left } = a;
  const { agentId: _c, updatedAt: _d, ...right } = b;
  return JSON.stringify(left) === JSON.stringify(right);
}

/** A stored deployment, validated again as a deploy request (a record the current schema refuses is not served). */
function revalidated(stored: StoredDeployment): StoredDeployment | undefined {
  const { resourceId, agentId, deployedAt, updatedAt, ...requested } = stored.deployment;
  const request = deploymentRequestSchema.safeParse(requested);
  if (!request.success) return undefined;
  return { version: stored.version, deployment: { ...request.data, resourceId, agentId, deployedAt, updatedAt } };
}

/**
 * Starts the resource host. Deployments live in the shared store (PostgreSQL with `DATABASE_URL`, else PGlite in
 * `DATA_DIR`; JSON files of the former storage are imported on first start); every instance serves every deployment
 * and follows the others' writes through the store's change notifications (and a periodic resync). Each endpoint gets
 * its gate at `/r/{slug}`, built on its first request; its handler runs in the sandbox pool (many isolates per workerd
 * process, loaded on first call, unloaded when idle). A deploy is checked, loaded once in the staging shard, written
 * under the slug's lock (another creator's slug is refused), then served; a redeploy by its creator replaces the
 * handler, and calls in flight on the old one finish.
 * @example const host = await createHost(loadHostConfig(process.env))
 */
export async function createHost(config: HostConfig, options: { logger?: Logger } = {}): Promise<Host> {
  const logger = options.logger ?? pino({ name: "host", level: config.LOG_LEVEL });
  if (config.DATABASE_URL && !config.HOST_SEAL_SECRET)
    logger.warn(
      { file: join(config.DATA_DIR, SEAL_KEY_FILE) },
      "no HOST_SEAL_SECRET: deployments are sealed with this instance's own key; other instances sharing the database will not serve them",
    );
  const deployments = await createDeploymentStore({
    databaseUrl: config.DATABASE_URL,
    dataDir: config.DATA_DIR,
    schema: config.DATABASE_SCHEMA,
    sealKey: readSealKey({ secret: config.HOST_SEAL_SECRET, dataDir: config.DATA_DIR }),
    onRefused: (slug) =>
      logger.error({ slug }, "a stored deployment does not match its seal (written outside the host); not served"),
  });
  const imported = await importJsonDeployments(deployments, config.DATA_DIR);
  if (imported.imported.length + imported.kept.length + imported.unreadable.length > 0)
    logger.info(imported, "deployment files imported into the store");
  const pool = createSandboxPool({
    shards: config.SANDBOX_SHARDS,
    capacity: config.SANDBOX_SHARD_CAPACITY,
    idleUnloadMs: config.SANDBOX_IDLE_UNLOAD_MS,
    quarantineMs: config.SANDBOX_QUARANTINE_MS,
    memory: { heapMb: config.SANDBOX_HEAP_MB, dataLimitMb: config.SANDBOX_DATA_LIMIT_MB },
    watchdog: {
      tickMs: config.SANDBOX_WATCHDOG_INTERVAL_MS,
      idleCpuMs: config.SANDBOX_IDLE_CPU_MS,
      healthIntervalMs: config.SANDBOX_HEALTH_INTERVAL_MS,
      probeTimeoutMs: config.SANDBOX_STALL_MS,
    },
    startTimeoutMs: config.SANDBOX_START_TIMEOUT_MS,
    logger,
  });
  const endpoints = new Map<string, Endpoint>();
  const retiring = new Set<Endpoint>();
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

  const retire = (old: Endpoint) => {
    retiring.add(old);
    setTimeout(() => {
      if (!retiring.delete(old)) return;
      old.close();
      if (endpoints.get(old.deployment.slug)?.sandbox.key !== old.sandbox.key) void pool.unload(old.sandbox.key);
    }, config.HANDLER_TIMEOUT_MS + 1_000).unref();
  };

  function install(stored: StoredDeployment): Endpoint | undefined {
    const slug = stored.deployment.slug;
    const current = endpoints.get(slug);
    if (current && current.version >= stored.version) return current;
    const checked = revalidated(stored);
    if (!checked) {
      logger.error({ slug }, "a stored deployment no longer validates; not served");
      return current;
    }
    try {
      if (current && sameButIdentity(current.deployment, checked.deployment)) {
        current.card = servedCard(checked.deployment, resourceUrls(ctx, slug).callUrl);
        current.deployment = checked.deployment;
        current.version = checked.version;
        return current;
      }
      const next = createEndpoint(ctx, pool, checked);
      endpoints.set(slug, next);
      if (current) retire(current);
      return next;
    } catch (error) {
      logger.error({ slug, err: (error as Error).message }, "a stored deployment's card does not validate; not served");
      return current;
    }
  }

  function drop(slug: string): Endpoint | undefined {
    const current = endpoints.get(slug);
    if (!current) return undefined;
    endpoints.delete(slug);
    retire(current);
    return current;
  }

  const refresh = (slug: string) =>
    serial(async () => {
      const stored = await deployments.get(slug);
      if (stored) install(stored);
      else drop(slug);
    });

  const resync = () =>
    serial(async () => {
      const versions = await deployments.versions();
      const stale = [...versions].filter(([slug, version]) => endpoints.get(slug)?.version !== version);
      const gone = [...endpoints.keys()].filter((slug) => !versions.has(slug));
      return [...stale.map(([slug]) => slug), ...gone];
    }).then((slugs) => Promise.all(slugs.map(refresh)));

  const operations: HostOperations = {
    deploy: (request) =>
      serial(async () => {
        const local = endpoints.get(request.slug)?.deployment;
        const taken = {
          kind: "refused",
          status: 409,
          code: "slug_taken",
          message: "another creator deployed this slug",
        } as const;
        if (local && local.creator !== request.creator) return taken;
        // Before prepareDeployment, which checks the sample request on this loop.
        const slow = await slowExampleProblem(request);
        if (slow) return { kind: "refused", status: 400, code: "invalid_request", message: slow } as const;
        const prepared = prepareDeployment(ctx, request, local);
        if (!prepared.ok)
          return { kind: "refused", status: 400, code: "invalid_request", message: prepared.message } as const;
        const sandbox = pooledHandler(prepared.deployment);
        try {
          await pool.verify(sandbox);
        } catch (error) {
          if (!(error instanceof SandboxStartError)) throw error;
          return { kind: "refused", status: 422, code: "handler_failed", message: error.message } as const;
        }
        const { written, existing, refused } = await deployments.write(request.slug, (existing) =>
          existing && existing.creator !== request.creator
            ? undefined
            : {
                ...prepared.deployment,
                agentId: existing?.agentId ?? prepared.deployment.agentId,
                deployedAt: existing?.deployedAt ?? prepared.deployment.deployedAt,
              },
        );
        if (refused)
          return {
            ...taken,
            message: "the stored deployment of this slug does not match its seal; an operator must remove it first",
          };
        if (!written) return taken;
        install(written);
        void pool
          .warm(sandbox)
          .catch((error) => logger.warn({ slug: request.slug, err: (error as Error).message }, "warm-up failed"));
        logger.info(
          { slug: request.slug, resourceId: written.deployment.resourceId },
          existing ? "redeployed" : "deployed",
        );
        return { kind: "deployed", created: !existing, deployment: written.deployment } as const;
      }),
    setIdentity: (slug, agentId) =>
      serial(async () => {
        let refusal: string | undefined;
        const { written } = await deployments.write(slug, (existing) => {
          if (!existing) return undefined;
          const next: Deployment = { ...existing, agentId, updatedAt: new Date().toISOString() };
          try {
            servedCard(next, resourceUrls(ctx, slug).callUrl);
          } catch (error) {
            refusal = (error as Error).message;
            return undefined;
          }
          return next;
        });
        if (refusal !== undefined) return { kind: "refused", message: refusal } as const;
        if (!written) return { kind: "unknown" } as const;
        const endpoint = install(written);
        return { kind: "updated", deployment: written.deployment, card: endpoint?.card } as const;
      }),
    remove: (slug) =>
      serial(async () => {
        const removed = await deployments.remove(slug);
        if (!removed) return { kind: "unknown" } as const;
        drop(slug);
        logger.info({ slug, resourceId: removed.resourceId }, "removed");
        return { kind: "removed", deployment: removed } as const;
      }),
    list: () =>
      [...endpoints.values()].map((endpoint) => ({
        deployment: endpoint.deployment,
        sandbox: pool.status(endpoint.sandbox.key),
      })),
    shards: () => pool.shards(),
    ready: () => loaded,
  };

  const app = createHostApp(ctx, operations);
  const hostCallback = app.callback();
  const server = createJsonServer((req: IncomingMessage, res: ServerResponse) => {
    const match = RESOURCE_PATH.exec(req.url ?? "");
    if (!match) return hostCallback(req, res);
    const endpoint = endpoints.get(match[1] ?? "");
    if (!endpoint) return answer(res, 404, "not_found", "no resource with this slug");
    let gate: ReturnType<Endpoint["gate"]>;
    try {
      gate = endpoint.gate();
    } catch (error) {
      logger.error({ slug: match[1], err: (error as Error).message }, "the endpoint's gate could not be built");
      return answer(res, 500, "internal_error", "the resource is misconfigured");
    }
    req.url = `${match[2] || "/"}${match[3] ?? ""}`;
    gate.callback(req, res);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(config.PORT, config.HOST, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  ctx.publicUrl = (config.PUBLIC_URL ?? `http://${config.HOST}:${port}`).replace(/\/$/, "");

  const unsubscribe = await deployments.subscribe(
    (slug) =>
      void refresh(slug).catch((error) => logger.warn({ slug, err: (error as Error).message }, "refresh failed")),
    () => void resync().catch((error) => logger.warn({ err: (error as Error).message }, "resync failed")),
  );
  await serial(async () => {
    for (const stored of await deployments.list()) install(stored);
  });
  loaded = true;
  const resyncTimer = setInterval(
    () => void resync().catch((error) => logger.warn({ err: (error as Error).message }, "resync failed")),
    config.DEPLOYMENT_RESYNC_MS,
  );
  resyncTimer.unref();
  logger.info({ url: ctx.publicUrl, resources: endpoints.size, store: deployments.store.kind }, "host listening");

  return {
    url: ctx.publicUrl,
    server,
    endpoints,
    pool,
    deployments,
    async stop() {
      live.stop();
      clearInterval(resyncTimer);
      await unsubscribe();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await queue;
      for (const endpoint of [...endpoints.values(), ...retiring]) endpoint.close();
      endpoints.clear();
      retiring.clear();
      await pool.close();
      await deployments.close();
    },
  };
}
