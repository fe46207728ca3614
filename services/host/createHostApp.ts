import Router from "@koa/router";
import Koa from "koa";
import type { z } from "zod";
import { requireBearerToken } from "../http/bearerToken.ts";
import { errorBodies } from "../http/errorBodies.ts";
import { HttpError } from "../http/httpError.ts";
import { MAX_BODY_DEPTH } from "../http/jsonDepth.ts";
import { parseWith as parse } from "../http/parseWith.ts";
import { jsonBody } from "../http/readJsonBody.ts";
import type { ErrorCode } from "../protocol/reasons.ts";
import type { Deployment } from "./createDeploymentStore.ts";
import type { PooledHandlerStatus, PoolShardStatus } from "./createSandboxPool.ts";
import { deploymentRequestSchema, identityRequestSchema } from "./deploymentSchema.ts";
import type { HostContext } from "./hostContext.ts";
import { resourceUrls } from "./hostContext.ts";

/** The host's operations behind its HTTP routes. */
export type HostOperations = {
  deploy(
    body: z.output<typeof deploymentRequestSchema>,
  ): Promise<
    | { kind: "deployed"; created: boolean; deployment: Deployment }
    | { kind: "refused"; status: 400 | 409 | 422; code: ErrorCode; message: string }
  >;
  setIdentity(
    slug: string,
    agentId: string,
  ): Promise<
    | { kind: "updated"; deployment: Deployment; card: unknown }
    | { kind: "unknown" }
    | { kind: "refused"; message: string }
  >;
  remove(slug: string): Promise<{ kind: "removed"; deployment: Deployment } | { kind: "unknown" }>;
  list(): { deployment: Deployment; sandbox: PooledHandlerStatus }[];
  shards(): PoolShardStatus[];
  ready(): boolean;
};

function describe(ctx: HostContext, deployment: Deployment) {
  return {
    slug: deployment.slug,
    resourceId: deployment.resourceId,
    agentId: deployment.agentId,
    creator: deployment.creator,
    ...resourceUrls(ctx, deployment.slug),
  };
}

/**
 * The host's own routes (Koa): health, readiness, and the bearer-protected deploy API. Resource gates are served
 * beside it under `/r/{slug}`.
 * @example const app = createHostApp(ctx, operations)
 */
export function createHostApp(ctx: HostContext, operations: HostOperations): Koa {
  const app = new Koa();
  app.silent = true;
  const router = new Router();
  const auth = requireBearerToken(ctx.config.HOST_TOKEN, {
    disabled: "deploys are disabled: the host has no HOST_TOKEN",
    refused: "a valid bearer token is required",
  });
  const json = jsonBody({ maxBytes: 3_145_728, maxDepth: MAX_BODY_DEPTH });

  router.get("/health", (koa) => {
    koa.body = { ok: true, service: "host" };
  });
  router.get("/ready", (koa) => {
    if (operations.ready()) koa.body = { ready: true };
    else throw new HttpError(503, "not_ready", "deployments are still loading");
  });
  router.get("/deployments", auth, (koa) => {
    koa.body = operations.list().map(({ deployment, sandbox }) => ({
      ...describe(ctx, deployment),
      restarts: sandbox.restarts,
      sandbox: { loaded: sandbox.loaded, shard: sandbox.shard ?? null, quarantined: sandbox.quarantined },
    }));
  });
  router.get("/shards", auth, (koa) => {
    koa.body = operations.shards().map((shard) => ({ ...shard, pid: shard.pid ?? null }));
  });
  router.post("/deployments", auth, json, async (koa) => {
    const request = parse(deploymentRequestSchema, koa.request.body);
    const outcome = await operations.deploy(request);
    if (outcome.kind === "refused") throw new HttpError(outcome.status, outcome.code, outcome.message);
    koa.status = outcome.created ? 201 : 200;
    koa.body = describe(ctx, outcome.deployment);
  });
  router.delete("/deployments/:slug", auth, async (koa) => {
    const outcome = await operations.remove(String(koa.params.slug));
    if (outcome.kind === "unknown") throw new HttpError(404, "not_found", "no deployment with this slug");
    koa.body = { ...describe(ctx, outcome.deployment), removed: true };
  });
  router.post("/deployments/:slug/identity", auth, json, async (koa) => {
    const { agentId } = parse(identityRequestSchema, koa.request.body);
    const outcome = await operations.setIdentity(String(koa.params.slug), agentId);
    if (outcome.kind === "unknown") throw new HttpError(404, "not_found", "no deployment with this slug");
    if (outcome.kind === "refused") throw new HttpError(400, "invalid_request", outcome.message);
    koa.body = { ...describe(ctx, outcome.deployment), card: outcome.card };
  });

  app.use(errorBodies({ logger: ctx.logger }));
  app.use(router.routes());
  app.use(router.allowedMethods());
  return app;
}
