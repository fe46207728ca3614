import Router from "@koa/router";
import Koa from "koa";
import { requireBearerToken } from "../http/bearerToken.ts";
import { errorBodies } from "../http/errorBodies.ts";
import { HttpError } from "../http/httpError.ts";
import { MAX_BODY_DEPTH } from "../http/jsonDepth.ts";
import { parseWith } from "../http/parseWith.ts";
import { jsonBody } from "../http/readJsonBody.ts";
import { isChainUnavailable } from "../protocol/chain.ts";
import { PriceFloorUnreachableError } from "../protocol/priceFloor.ts";
import { parseResourcesQuery, withPriceFloor } from "./catalog/resourcesQuery.ts";
import type { MarketplaceContext } from "./marketplaceContext.ts";
import { publishRequestSchema } from "./publish/publishRequest.ts";
import { PublishRefusedError, publishResource } from "./publish/publishResource.ts";
import { createPublishSlots } from "./publish/publishSlots.ts";
import type { PriceFloorReading } from "./publish/readPriceFloor.ts";
import { readCard } from "./routes/readCard.ts";
import { readiness } from "./routes/readiness.ts";
import { registrationFile } from "./routes/registrationFile.ts";

function chainUnavailable(error: unknown): HttpError | undefined {
  if (!isChainUnavailable(error)) return undefined;
  return new HttpError(503, "chain_unavailable", "the chain cannot be reached; retry shortly", { "Retry-After": "2" });
}

/**
 * Reads (GET and HEAD) are public: any origin may read them, and see the total count, with any request headers (a
 * CORS preflight is answered 204, for GET and HEAD only: no credentials are involved). Publishing is not offered to
 * other origins: it takes the operator's token, from a server.
 */
const publicReads: Koa.Middleware = async (koa, next) => {
  if (koa.method === "GET" || koa.method === "HEAD") {
    koa.set("Access-Control-Allow-Origin", "*");
    koa.set("Access-Control-Expose-Headers", "X-Total-Count, X-Price-Floor");
  }
  if (koa.method === "OPTIONS" && koa.get("Access-Control-Request-Method")) {
    koa.set("Access-Control-Allow-Origin", "*");
    koa.set("Access-Control-Allow-Methods", "GET, HEAD");
    const asked = koa.get("Access-Control-Request-Headers");
    if (asked) koa.set("Access-Control-Allow-Headers", asked);
    koa.set("Access-Control-Max-Age", "600");
    koa.status = 204;
    return;
  }
  await next();
};

/**
 * The marketplace's HTTP surface (Koa): health, readiness, the index, cards, registration files and publishing.
 * Routes only translate HTTP to operations; every failure is an error body.
 * @example const app = createMarketplaceApp(ctx)
 */
export function createMarketplaceApp(ctx: MarketplaceContext): Koa {
  const app = new Koa();
  const router = new Router();

  router.get("/health", (koa) => {
    koa.body = { ok: true, service: "marketplace" };
  });

  router.get("/ready", async (koa) => {
    const state = await readiness(ctx);
    if (!state.ready) throw new HttpError(503, "not_ready", state.reason ?? "not ready");
    koa.body = { ready: true };
  });

  /** The price floor of the moment, shared for a block; no fee at the escrow (no price pays) is 503 `not_ready`. */
  async function floorNow(): Promise<PriceFloorReading> {
    try {
      return await ctx.priceFloor();
    } catch (error) {
      if (error instanceof PriceFloorUnreachableError) throw new HttpError(503, "not_ready", error.shortMessage);
      throw error;
    }
  }

  router.get("/resources", async (koa) => {
    const parsed = parseResourcesQuery(koa.query);
    if (!parsed.ok) throw new HttpError(400, "invalid_request", parsed.message);
    let query = parsed.query;
    // `payable` re-checks listed prices at the fee of the moment, as verify does (docs/protocol.md, "Price floor").
    if (query.payable !== undefined) {
      const { minimumBase } = await floorNow();
      koa.set("X-Price-Floor", minimumBase.toString());
      query = withPriceFloor(query, minimumBase);
    }
    const { total, json } = ctx.catalog.query(query);
    koa.set("X-Total-Count", String(total));
    koa.type = "application/json";
    koa.body = json;
  });

  router.get("/pricing/floor", async (koa) => {
    const unknown = Object.keys(koa.query)[0];
    if (unknown !== undefined)
      throw new HttpError(400, "invalid_request", `unknown parameter "${unknown.slice(0, 64)}": this route takes none`);
    const floor = await floorNow();
    koa.set("Cache-Control", "no-store");
    koa.body = {
      minimumBase: floor.minimumBase.toString(),
      baseFeeWei: floor.baseFeeWei.toString(),
      gasPerDebit: floor.gasPerDebit,
      feeBps: floor.feeBps,
      marginBps: floor.marginBps,
      costPerCallUnits: floor.costPerCallUnits.toString(),
      treasuryNeededUnits: floor.treasuryNeededUnits.toString(),
    };
  });

  const publishSlots = createPublishSlots();
  router.post(
    "/resources",
    // Fail-closed: no configured token refuses every publish; a missing or wrong one is 401.
    requireBearerToken(ctx.config.PUBLISH_TOKEN, {
      disabled: "publishing is disabled: no publish token is configured",
      refused: "a valid Authorization: Bearer token is required to publish",
    }),
    jsonBody({ maxBytes: 262_144, maxDepth: MAX_BODY_DEPTH }),
    async (koa) => {
      const request = parseWith(publishRequestSchema, koa.request.body);
      try {
        const result = await publishSlots.run(() => publishResource(ctx, request));
        ctx.logger.info({ resourceId: result.resourceId, agentId: result.agentId, stages: result.stages }, "published");
        koa.status = 201;
        koa.body = result;
      } catch (error) {
        if (!(error instanceof PublishRefusedError)) throw error;
        ctx.logger.info(
          { slug: request.slug, stage: error.stage, reason: error.message, stages: error.stages },
          "publish refused",
        );
        throw new HttpError(422, `${error.stage}_failed`, `${error.stage} refused the listing: ${error.message}`);
      }
    },
  );

  router.get("/agents/:resourceId/registration.json", async (koa) => {
    const file = await registrationFile(ctx, koa.params.resourceId ?? "");
    if (!file) throw new HttpError(404, "not_found", "no identity was minted for this resource");
    koa.body = file;
  });

  router.get("/:resourceId/.well-known/agent-card.json", async (koa) => {
    const outcome = await readCard(ctx, koa.params.resourceId ?? "");
    if (outcome.kind === "unknown") throw new HttpError(404, "not_found", "no listed resource has this id");
    if (outcome.kind === "invalid") {
      ctx.logger.error({ resourceId: koa.params.resourceId, reason: outcome.reason }, "stored card failed validation");
      throw new HttpError(500, "card_invalid", outcome.reason);
    }
    koa.type = "application/json";
    koa.set("Cache-Control", `public, max-age=${outcome.ttlSeconds}`);
    koa.body = outcome.text;
  });

  app.use(publicReads);
  app.use(errorBodies({ logger: ctx.logger, translate: chainUnavailable }));
  app.use(router.routes());
  app.use(router.allowedMethods());
  return app;
}
