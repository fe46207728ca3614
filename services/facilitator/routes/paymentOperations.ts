import type { Hex } from "viem";
import { HttpError } from "../../http/httpError.ts";
import { parseWith } from "../../http/parseWith.ts";
import { verifyCallerToken } from "../../protocol/callerToken.ts";
import { normalizePaymentPayload } from "../../protocol/schemas/paymentPayload.ts";
import type { FacilitatorContext } from "../facilitatorContext.ts";
import { releasePayment } from "../releasePayment.ts";
import { settlePayment } from "../settlePayment.ts";
import { payersOf } from "../store/payersOf.ts";
import { verifyPayment } from "../verifyPayment.ts";
import { releaseRequestSchema, settleRequestSchema, verifyRequestSchema } from "./schemas.ts";

export type CallerAuth = { enabled: false } | { enabled: true; secret: string | undefined };

/**
 * Refuses (401) a caller whose token is not a live token of `resourceId` under the facilitator's secret; passes
 * everything when caller auth is off. Fail-closed: caller auth on without a secret refuses every call.
 */
export function authorize(auth: CallerAuth, token: string | undefined, resourceId: string, now: number): void {
  if (!auth.enabled) return;
  if (!auth.secret) throw new HttpError(401, "unauthorized", "caller auth is enabled but no secret is configured");
  const verdict = verifyCallerToken({ token, secret: auth.secret, resourceId, now });
  if (!verdict.ok) throw new HttpError(401, "unauthorized", `caller token refused: ${verdict.reason}`);
}

/**
 * Whose reservation or result a request means: the `payer` it names, else the one buyer holding the nonce (undefined:
 * none). A nonce is each buyer's own, so two may hold one; a request naming neither is refused, never guessed.
 */
export async function payerOf(payer: Hex | undefined, holders: () => Promise<string[]>): Promise<Hex | undefined> {
  if (payer) return payer.toLowerCase() as Hex;
  const found = await holders();
  if (found.length > 1)
    throw new HttpError(409, "payer_required", "more than one buyer holds this idemKey: name the payer");
  return found[0] as Hex | undefined;
}

const NO_RESERVATION = "no reservation for this idemKey and resource";

/** A release's or settle's caller authorized for its resource, and the buyer whose reservation it names (409 none). */
async function reservedBuyer(
  ctx: FacilitatorContext,
  auth: CallerAuth,
  request: { idemKey: Hex; payer?: Hex | undefined; resourceId: Hex },
  token: string | undefined,
): Promise<Hex> {
  authorize(auth, token, request.resourceId, ctx.clock.now());
  const buyer = await payerOf(request.payer, () =>
    payersOf(ctx.store, { table: "reservation", idemKey: request.idemKey, resourceId: request.resourceId }),
  );
  if (!buyer) throw new HttpError(409, "no_reservation", NO_RESERVATION);
  return buyer;
}

/**
 * One payment operation of the facilitator: a request body (not yet parsed) and the caller's token in, the answer
 * body out; a refusal of the request itself is thrown as an HttpError. `POST /verify`, `/release` and `/settle` and
 * every item of `POST /batch` run these, so an item of a batch is answered exactly as its own route would answer it.
 */
export type PaymentOperation = (
  ctx: FacilitatorContext,
  auth: CallerAuth,
  body: unknown,
  token: string | undefined,
  options?: PaymentOperationOptions,
) => Promise<unknown>;

/**
 * `inBatch`: the call is one of a streamed batch, whose calls never wait for the escrow book to catch up: a verify
 * that would throws BookCatchUpDeferredError, and the gate sends it on its own route.
 */
export type PaymentOperationOptions = { inBatch?: boolean };

const verify: PaymentOperation = async (ctx, auth, body, token, options = {}) => {
  const request = parseWith(verifyRequestSchema, body);
  authorize(auth, token, request.resourceId, ctx.clock.now());
  const normalized = normalizePaymentPayload(request.paymentPayload);
  const result = normalized.ok
    ? await verifyPayment(
        ctx,
        {
          payload: normalized.payload,
          resourceId: request.resourceId,
          maxTimeoutSeconds: request.maxTimeoutSeconds,
          requestHash: request.requestHash,
        },
        { waitForBook: options.inBatch !== true },
      )
    : { isValid: false as const, invalidReason: "invalid_payload" as const, invalidMessage: normalized.message };
  ctx.metrics.verify.inc({ outcome: result.isValid ? "valid" : result.invalidReason });
  return result;
};

const release: PaymentOperation = async (ctx, auth, body, token) => {
  const request = parseWith(releaseRequestSchema, body);
  const buyer = await reservedBuyer(ctx, auth, request, token);
  const outcome = await releasePayment(ctx, { ...request, buyer });
  if (outcome.kind === "no_reservation") throw new HttpError(409, "no_reservation", outcome.message);
  if (outcome.kind === "already_settled") throw new HttpError(409, "already_settled", outcome.message);
  return outcome.body;
};

const settle: PaymentOperation = async (ctx, auth, body, token) => {
  const request = parseWith(settleRequestSchema, body);
  const buyer = await reservedBuyer(ctx, auth, request, token);
  const outcome = await settlePayment(ctx, {
    idemKey: request.idemKey,
    buyer,
    resourceId: request.resourceId,
    amount: BigInt(request.amount),
    response: {
      status: request.response.status,
      contentType: request.response.contentType,
      body: request.response.body,
    },
  });
  if (outcome.kind === "no_reservation") throw new HttpError(409, "no_reservation", outcome.message);
  if (outcome.kind === "settlement_failed") throw new HttpError(409, "settlement_failed", outcome.message);
  if (outcome.kind === "pending") {
    throw new HttpError(503, "settlement_pending", "the debit is not confirmed yet; retry the same settle", {
      "Retry-After": String(outcome.retryAfterSeconds),
    });
  }
  return outcome.body;
};

/** The payment operations by route name (`POST /<name>`). */
export const PAYMENT_OPERATIONS = { verify, release, settle } as const;

export type PaymentRoute = keyof typeof PAYMENT_OPERATIONS;
