import { PassThrough } from "node:stream";
import Router from "@koa/router";
import Koa from "koa";
import type { Logger } from "pino";
import type { Hex, LocalAccount, PublicClient } from "viem";
import { zeroAddress } from "viem";
import { z } from "zod";
import { requireBearerToken } from "../../http/bearerToken.ts";
import { errorBodies } from "../../http/errorBodies.ts";
import { HttpError } from "../../http/httpError.ts";
import { MAX_BODY_DEPTH } from "../../http/jsonDepth.ts";
import { parseWith } from "../../http/parseWith.ts";
import { jsonBody } from "../../http/readJsonBody.ts";
import { isChainUnavailable } from "../../protocol/chain.ts";
import { resourceIdOf } from "../../protocol/resourceId.ts";
import { addressSchema, signatureSchema } from "../../protocol/schemas/primitives.ts";
import type { CodeWriter } from "../contract.ts";
import { draftEndpoint, launchEndpoint } from "../createEndpoint.ts";
import type { Creator } from "../creator.ts";
import { publishTerms } from "../publish.ts";
import { publishSummary } from "../publishSummary.ts";
import { StudioError } from "../studioError.ts";
import type { StudioTarget } from "../studioTarget.ts";
import { checkDeactivation, deactivationTransaction } from "./deactivationTransaction.ts";
import type { Draft, DraftStore } from "./draftStore.ts";
import { createDraftStore, DraftsBusyError } from "./draftStore.ts";

/** What the studio service needs: where it deploys, who writes code, who pays the self-test, its bearer token. */
export type StudioAppParameters = {
  target: StudioTarget;
  writer: CodeWriter & { available?(): Promise<boolean> };
  buyer: LocalAccount;
  client: PublicClient;
  token: string | undefined;
  logger: Logger;
  drafts?: DraftStore;
};

/**
 * A draft's request. The creator signs the registration, the bond and the deactivation: the zero address, which
 * nobody can sign for, would give a verified draft whose transactions nobody can send.
 */
const draftRequestSchema = z.strictObject({
  sentence: z.string().max(10_000),
  creator: addressSchema.refine((address) => address !== zeroAddress, "the creator must not be the zero address"),
});
const publishRequestSchema = z.strictObject({
  signatures: z.strictObject({
    registration: signatureSchema,
    bond: signatureSchema,
    /** The creator's signed `deactivate(resourceId)` transaction, sent only if the self-test fails. */
    deactivation: z.string().regex(/^0x[0-9a-fA-F]+$/),
  }),
});

function jsonSafe(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value, (_, v) => (typeof v === "bigint" ? v.toString() : v)));
}

function failure(error: unknown): Draft["error"] {
  if (error instanceof StudioError)
    return {
      stage: error.stage,
      code: error.code,
      message: error.message,
      next: error.next,
      details: jsonSafe(error.data) as Record<string, unknown>,
    };
  if (isChainUnavailable(error))
    return {
      stage: "internal",
      code: "chain_unavailable",
      message: (error as Error).message,
      next: "the chain's RPC did not answer: start the draft again once it does",
      details: {},
    };
  return {
    stage: "internal",
    code: "internal_error",
    message: (error as Error).message,
    next: "this is a bug in the studio: report it with the draft's id",
    details: {},
  };
}

/** The public view of a draft: stage, checks, failures, what it would publish, bundle, what to sign, the result. */
export function draftView(draft: Draft) {
  const report = (draft.bundle?.report ?? draft.error?.details.report) as
    | { checks?: { failures: unknown[] }[] }
    | undefined;
  return jsonSafe({
    id: draft.id,
    sentence: draft.sentence,
    creator: draft.creator,
    status: draft.status,
    stage: draft.stage,
    createdAt: draft.createdAt,
    expiresAt: draft.expiresAt,
    checks: report?.checks ?? [],
    failures: (report?.checks ?? []).flatMap((c) => c.failures),
    summary: draft.bundle ? publishSummary(draft.bundle) : undefined,
    bundle: draft.bundle,
    resourceId: draft.resourceId,
    toSign: draft.terms
      ? {
          registration: draft.terms.typedData.registration,
          bond: draft.terms.typedData.bond,
          deactivation: draft.deactivation,
        }
      : undefined,
    error: draft.error,
    result: draft.result,
    events: draft.events,
  });
}

/**
 * The studio's HTTP service (Koa), in two steps like the CLI's question: `POST /drafts` starts a draft (specify,
 * write, verify, repair: nothing is deployed) and answers 202; `GET /drafts/:id` shows it (stage, checks, failures,
 * the summary of what it would publish, the bundle, the typed data the creator signs); `GET /drafts/:id/events`
 * streams its progress as Server-Sent Events; only `POST /drafts/:id/publish`, with the creator's signatures, deploys,
 * publishes and self-tests. A draft at rest expires (410 `draft_expired` after). Bearer token on every route but
 * `/health`, fail-closed.
 * @example const app = createStudioApp({ target, writer, buyer, client, token, logger })
 */
export function createStudioApp(p: StudioAppParameters): Koa {
  const drafts = p.drafts ?? createDraftStore();
  const app = new Koa();
  app.silent = true;
  const router = new Router();
  const auth = requireBearerToken(p.token, {
    disabled: "the studio has no STUDIO_TOKEN: every request is refused",
    refused: "a valid bearer token is required",
  });
  const json = jsonBody({ maxBytes: 65_536, maxDepth: MAX_BODY_DEPTH });
  const draftOf = (id: string) => {
    const draft = drafts.get(id);
    if (draft) return draft;
    if (drafts.expired(id))
      throw new HttpError(410, "draft_expired", "the draft expired: create it again with POST /drafts");
    throw new HttpError(404, "not_found", "no draft with this id");
  };

  async function runDraft(draft: Draft) {
    try {
      const { bundle } = await draftEndpoint({
        sentence: draft.sentence,
        writer: p.writer,
        target: p.target,
        onEvent: (event) => drafts.emit(draft, event),
      });
      draft.bundle = bundle;
      draft.resourceId = resourceIdOf(draft.creator, bundle.contract.slug);
      draft.terms = publishTerms({ contract: bundle.contract, target: p.target, creator: draft.creator });
      draft.deactivation = await deactivationTransaction(p.client, {
        creator: draft.creator,
        registry: p.target.contracts.registry,
        resourceId: draft.resourceId,
      });
      drafts.setStatus(draft, "verified");
    } catch (error) {
      draft.error = failure(error);
      drafts.setStatus(draft, "failed");
    }
  }

  async function runPublish(draft: Draft, signatures: { registration: Hex; bond: Hex; deactivation: Hex }) {
    const { bundle, terms } = draft;
    if (!bundle || !terms) return;
    const creator: Creator = {
      address: draft.creator,
      signTypedData: () => Promise.reject(new Error("the studio holds no creator key")),
      async deactivate() {
        const hash = await p.client.sendRawTransaction({ serializedTransaction: signatures.deactivation });
        const receipt = await p.client.waitForTransactionReceipt({ hash });
        if (receipt.status !== "success") throw new Error(`the creator's deactivation reverted in ${hash}`);
        return hash;
      },
    };
    try {
      const listed = await launchEndpoint({
        bundle,
        target: p.target,
        creator,
        buyer: p.buyer,
        signed: { terms, signatures: { registration: signatures.registration, bond: signatures.bond } },
        onEvent: (event) => drafts.emit(draft, event),
      });
      draft.result = jsonSafe({
        resourceId: listed.deployed.resourceId,
        resourceUrl: listed.deployed.resourceUrl,
        callUrl: listed.deployed.callUrl,
        cardUrl: listed.published.cardUrl,
        agentId: listed.published.agentId,
        transactions: {
          register: listed.published.transactions.register,
          // A committed debit the relayer holds has no transaction yet: its settlementId names it.
          selfTestDebit: listed.selfTest.debit.settlement === "confirmed" ? listed.selfTest.debit.transaction : null,
          ...(listed.selfTest.debit.settlement === "committed"
            ? { selfTestSettlementId: listed.selfTest.debit.settlementId }
            : {}),
        },
        selfTest: listed.selfTest,
        stages: listed.stages,
      }) as Record<string, unknown>;
      drafts.setStatus(draft, "listed");
    } catch (error) {
      draft.error = failure(error);
      drafts.setStatus(draft, "failed");
    }
  }

  router.get("/health", (koa) => {
    koa.body = { ok: true, service: "studio" };
  });
  router.post("/drafts", auth, json, async (koa) => {
    const { sentence, creator } = parseWith(draftRequestSchema, koa.request.body);
    if (p.writer.available && !(await p.writer.available()))
      throw new HttpError(
        503,
        "provider_unavailable",
        `the ${p.writer.name} code writer is not reachable: start its model server or fix STUDIO_LLM_URL, then retry`,
        {
          "retry-after": "5",
        },
      );
    let draft: Draft;
    try {
      draft = drafts.create(sentence, creator);
    } catch (error) {
      if (!(error instanceof DraftsBusyError)) throw error;
      throw new HttpError(503, "studio_busy", error.message, { "retry-after": "10" });
    }
    void runDraft(draft);
    koa.status = 202;
    koa.body = { id: draft.id, status: draft.status };
  });
  router.get("/drafts/:id", auth, (koa) => {
    koa.body = draftView(draftOf(String(koa.params.id)));
  });
  router.get("/drafts/:id/events", auth, (koa) => {
    const draft = draftOf(String(koa.params.id));
    const stream = new PassThrough();
    const send = (kind: string, data: unknown) => stream.write(`event: ${kind}\ndata: ${JSON.stringify(data)}\n\n`);
    const terminal = () => draft.status === "failed" || draft.status === "listed";
    for (const event of draft.events) send("progress", event);
    send("state", { status: draft.status });
    if (terminal()) stream.end();
    else {
      const unsubscribe = drafts.subscribe(draft, (kind, data) => {
        send(kind, data);
        if (terminal()) {
          unsubscribe();
          stream.end();
        }
      });
      koa.req.on("close", unsubscribe);
    }
    koa.set({ "content-type": "text/event-stream", "cache-control": "no-cache", "x-accel-buffering": "no" });
    koa.status = 200;
    koa.body = stream;
  });
  router.post("/drafts/:id/publish", auth, json, async (koa) => {
    const draft = draftOf(String(koa.params.id));
    const { signatures } = parseWith(publishRequestSchema, koa.request.body);
    if (draft.status !== "verified" || !draft.resourceId)
      throw new HttpError(
        409,
        "draft_not_verified",
        `the draft is ${draft.status}; only a verified draft is published (GET /drafts/:id shows its status)`,
      );
    const problem = await checkDeactivation(signatures.deactivation as Hex, {
      creator: draft.creator,
      registry: p.target.contracts.registry,
      resourceId: draft.resourceId,
    });
    if (problem) throw new HttpError(400, "invalid_request", problem);
    drafts.setStatus(draft, "publishing");
    void runPublish(draft, {
      registration: signatures.registration as Hex,
      bond: signatures.bond as Hex,
      deactivation: signatures.deactivation as Hex,
    });
    koa.status = 202;
    koa.body = { id: draft.id, status: draft.status };
  });

  app.use(errorBodies({ logger: p.logger }));
  app.use(router.routes());
  app.use(router.allowedMethods());
  return app;
}
