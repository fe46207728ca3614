import type { Hex } from "viem";
import { getAddress } from "viem";
import { cardHashOf } from "../../protocol/cardHash.ts";
import { defined } from "../../protocol/defined.ts";
import { BaseError } from "../../protocol/errors.ts";
import { NEUTRAL_LIVE_FIELDS, withLiveFields } from "../../protocol/liveCardFields.ts";
import { meteredPrice } from "../../protocol/price.ts";
import type { PublishStage } from "../../protocol/reasons.ts";
import { resourceIdOf } from "../../protocol/resourceId.ts";
import type { CardTemplate } from "../../protocol/schemas/card.ts";
import { finalizeCard } from "../../protocol/schemas/card.ts";
import { TransactionRefusedError } from "../chain.ts";
import type { MarketplaceContext } from "../marketplaceContext.ts";
import { cardUrlOf, registrationUrlOf } from "../marketplaceContext.ts";
import { markPublished, removeListing, savePendingListing } from "../store/listings.ts";
import { recordProbe } from "../store/probes.ts";
import { checkBond } from "./checkBond.ts";
import { checkPrice } from "./checkPrice.ts";
import { mintIdentity } from "./mintIdentity.ts";
import { moderate } from "./moderation.ts";
import { probeResource } from "./probeResource.ts";
import type { PublishRequest } from "./publishRequest.ts";

/** How long one stage took and whether it passed. */
export type StageReport = { stage: PublishStage; ok: boolean; ms: number };

/** A stage refused the publish: an expected outcome, reported as 422 `<stage>_failed`. */
export class PublishRefusedError extends BaseError {
  override name = "PublishRefusedError";
  readonly stage: PublishStage;
  readonly stages: StageReport[];
  constructor(stage: PublishStage, reason: string, stages: StageReport[]) {
    super(reason);
    this.stage = stage;
    this.stages = stages;
  }
}

/** What {@link publishResource} throws for an expected refusal (anything else is a bug). */
export type PublishResourceErrorType = PublishRefusedError;

/** The 201 body of `POST /resources`. */
export type PublishResult = { resourceId: Hex; agentId: string; cardUrl: string; stages: StageReport[] };

/**
 * Runs the publish pipeline: moderation, price, bond, probe, mint, index, each timed. A refusal throws PublishRefusedError
 * naming its stage; nothing is listed unless every stage passed, because a resource is listed only once its
 * registration (with its bond, in the same transaction) is on chain and the listing written before it is kept.
 * @example const result = await publishResource(ctx, request)
 */
export async function publishResource(ctx: MarketplaceContext, request: PublishRequest): Promise<PublishResult> {
  const creator = getAddress(request.creator);
  const resourceId = resourceIdOf(creator, request.slug);
  const resourceUrl = request.resourceUrl.replace(/\/+$/, "");
  const stages: StageReport[] = [];

  async function stage<T>(
    name: PublishStage,
    run: () => Promise<{ ok: true; value: T } | { ok: false; reason: string }>,
  ): Promise<T> {
    const started = performance.now();
    const report = (ok: boolean) =>
      stages.push({ stage: name, ok, ms: Math.round((performance.now() - started) * 10) / 10 });
    let outcome: Awaited<ReturnType<typeof run>>;
    try {
      outcome = await run();
    } catch (error) {
      report(false);
      if (error instanceof TransactionRefusedError)
        throw new PublishRefusedError(name, `the chain refused: ${error.message}`, stages);
      throw error;
    }
    report(outcome.ok);
    if (!outcome.ok) throw new PublishRefusedError(name, outcome.reason, stages);
    return outcome.value;
  }

  return ctx.store.withLock(`publish:${resourceId}`, async () => {
    await stage("moderation", async () => {
      const verdict = moderate(
        {
          slug: request.slug,
          category: request.category,
          name: request.card.name,
          description: request.card.description,
          skills: request.card.skills,
        },
        ctx.moderationRules,
      );
      return verdict.ok ? { ok: true, value: undefined } : verdict;
    });

    const floor = await stage("price", async () => {
      const verdict = await checkPrice({ chain: ctx.chain, config: ctx.config, request });
      return verdict.ok ? { ok: true, value: verdict.floor.minimumBase } : verdict;
    });

    const bond = await stage("bond", async () => {
      const verdict = await checkBond({
        chain: ctx.chain,
        request,
        resourceId,
        minBond: BigInt(ctx.config.MIN_BOND),
        now: Math.floor(Date.now() / 1000),
      });
      return verdict.ok ? { ok: true, value: verdict.bond } : verdict;
    });

    const served = await stage("probe", async () => {
      const pricing = request.card.x402.pricing;
      if (
        pricing.base !== request.pricing.base ||
        pricing.perKB !== request.pricing.perKB ||
        pricing.max !== request.pricing.max
      ) {
        return { ok: false, reason: "the card's pricing differs from the pricing the creator signed" };
      }
      const probe = await probeResource({
        resourceId,
        resourceUrl,
        escrow: ctx.chain.addresses.escrow,
        token: ctx.chain.addresses.token,
        sampleRequest: request.sampleRequest,
        expectedCard: request.card,
        allowAgentPlaceholder: true,
        timeoutMs: ctx.config.PROBE_TIMEOUT_MS,
        maxBodyBytes: ctx.config.PROBE_MAX_BODY_BYTES,
        allowPrivate: ctx.config.PROBE_ALLOW_PRIVATE,
      });
      if (!probe.ok) return { ok: false, reason: `${probe.check}: ${probe.reason}` };
      const [quoted] = probe.quote.accepts;
      const least = meteredPrice({ ...quoted.pricing, cap: quoted.maxAmountRequired, responseBytes: 0 });
      if (least < floor) {
        return {
          ok: false,
          reason: `quote: computeMultiplier ${quoted.pricing.computeMultiplier} charges a successful call as little as ${least}, below the price floor ${floor}`,
        };
      }
      return { ok: true, value: probe.card };
    });

    const minted = await stage("mint", async () => {
      const identity = await mintIdentity({
        chain: ctx.chain,
        store: ctx.store,
        resourceId,
        creator,
        name: served.name,
        description: served.description,
        agentURI: registrationUrlOf(ctx.publicUrl(), resourceId),
      });
      const card = finalizeCard(served as CardTemplate, {
        callUrl: `${resourceUrl}/call`,
        resourceId,
        agentId: identity.agentId,
      });
      const cardText = JSON.stringify(withLiveFields(card, NEUTRAL_LIVE_FIELDS));
      return { ok: true, value: { agentId: identity.agentId, cardText, cardHash: cardHashOf(card) } };
    });

    const cardUrl = cardUrlOf(ctx.publicUrl(), resourceId);
    await stage("index", async () => {
      await savePendingListing(ctx.store, {
        resourceId,
        creator,
        slug: request.slug,
        resourceUrl,
        cardText: minted.cardText,
        cardHash: minted.cardHash,
        sampleRequest: request.sampleRequest,
        agentId: minted.agentId.toString(),
      });
      ctx.catalog.applyListing({
        resourceId,
        resourceUrl,
        cardText: minted.cardText,
        sampleRequest: request.sampleRequest,
        status: "pending",
      });
      const history = await recordProbe(ctx.store, resourceId, { ok: true }, ctx.config.UPTIME_WINDOW);
      ctx.catalog.applyProbes(resourceId, history);
      const b = defined(request.bond, "the bond authorization (checked by the bond stage)");
      try {
        await ctx.chain.registerFor([
          creator,
          {
            slug: request.slug,
            agentId: minted.agentId,
            payout: request.payout,
            category: request.category,
            pricing: {
              base: BigInt(request.pricing.base),
              perKB: BigInt(request.pricing.perKB),
              max: BigInt(request.pricing.max),
            },
            cardURI: cardUrl,
            cardHash: minted.cardHash,
          },
          BigInt(request.registration.deadline),
          request.registration.signature,
          {
            value: bond,
            validAfter: BigInt(b.validAfter),
            validBefore: BigInt(b.validBefore),
            nonce: b.nonce,
            signature: b.signature,
          },
        ]);
      } catch (error) {
        if (error instanceof TransactionRefusedError) {
          await removeListing(ctx.store, resourceId);
          ctx.catalog.dropListing(resourceId);
        }
        throw error;
      }
      const listed = await ctx.catalog.waitForListed(resourceId, ctx.config.INDEX_WAIT_MS);
      if (!listed) {
        return {
          ok: false,
          reason: `registered on chain, but the indexer did not show it within ${ctx.config.INDEX_WAIT_MS} ms; it is listed once the indexer catches up`,
        };
      }
      await markPublished(ctx.store, resourceId);
      ctx.catalog.applyListing({
        resourceId,
        resourceUrl,
        cardText: minted.cardText,
        sampleRequest: request.sampleRequest,
        status: "published",
      });
      return { ok: true, value: undefined };
    });

    return { resourceId, agentId: minted.agentId.toString(), cardUrl, stages };
  });
}
