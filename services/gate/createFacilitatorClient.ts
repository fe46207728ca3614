import type { Address, Hex } from "viem";
import type { VerifyReason } from "../protocol/reasons.ts";
import { isVerifyReason } from "../protocol/reasons.ts";
import type { PaymentPayload } from "../protocol/schemas/paymentPayload.ts";
import type { BatchRoute } from "./createBatchLink.ts";
import { sharedBatchLink } from "./createBatchLink.ts";
import type { RequestJsonReturnType } from "./createJsonClient.ts";
import { createJsonClient } from "./createJsonClient.ts";

/** A response as the facilitator stores it for replay and `GET /results`. */
export type StoredCallResponse = { status: number; contentType: string; body: unknown };

/** `POST /verify`: a reservation, a refusal (data), or an unreachable facilitator. */
export type VerifyOutcome =
  | { kind: "reserved"; payer: Address; idemKey: Hex }
  | { kind: "refused"; reason: VerifyReason | "invalid_payload"; message: string }
  | { kind: "unavailable"; code: string; message: string; retryAfter: string };

/** `POST /release`. */
export type ReleaseOutcome = { kind: "released"; strikeRecorded: boolean } | { kind: "failed"; message: string };

/** `POST /settle`: the receipt, pending (503), refused for good (409 or another final 4xx), or unreachable. */
export type SettleOutcome =
  | { kind: "settled"; receipt: string }
  | { kind: "pending"; retryAfter: string }
  | { kind: "refused"; code: string; message: string }
  | { kind: "unavailable"; message: string };

/** `GET /results/:idemKey`. */
export type ResultOutcome =
  | {
      kind: "found";
      resourceId: string;
      response: StoredCallResponse;
      receipt: string;
      /** The payment that was settled (`{ scheme, authorization, signature }`), as the facilitator reserved it. */
      payment: unknown;
      /** The hash of the request it was reserved for; undefined when its gate sent none. */
      requestHash: string | undefined;
    }
  | {
      /**
       * No result yet (202): the call is being served (`reserved`), or its settle was accepted and its debit is not
       * mined (`pending`); ask again after `retryAfter` seconds.
       */
      kind: "open";
      settlement: "reserved" | "pending";
      resourceId: string;
      payment: unknown;
      requestHash: string | undefined;
      retryAfter: string;
    }
  | { kind: "missing" }
  | { kind: "unavailable"; message: string };

/**
 * The facilitator operations the gate uses. A reservation is named by its idemKey and its payer (a nonce is each
 * buyer's own); the request hash binds a reservation to the request it was made for.
 */
export type FacilitatorClient = {
  verify(payload: PaymentPayload, resourceId: Hex, maxTimeoutSeconds: number, requestHash: Hex): Promise<VerifyOutcome>;
  release(request: {
    idemKey: Hex;
    payer: Address;
    resourceId: Hex;
    strikeReason?: string | undefined;
  }): Promise<ReleaseOutcome>;
  settle(request: {
    idemKey: Hex;
    payer: Address;
    resourceId: Hex;
    amount: bigint;
    response: StoredCallResponse;
  }): Promise<SettleOutcome>;
  result(idemKey: Hex, payer: Address): Promise<ResultOutcome>;
  ready(): Promise<boolean>;
  close(): void;
};

type Answer = Extract<RequestJsonReturnType, { ok: true }>;

/**
 * Whether a settle's answer refuses it for good: 409 (no reservation, already released …) or any other 4xx but 408
 * and 429, which a retry may pass. The same settle sent again would get the same answer, so the buyer is told nothing
 * was charged rather than to retry for good; a 5xx may pass on a retry.
 */
const refusedForGood = (status: number) => status >= 400 && status < 500 && status !== 408 && status !== 429;

function errorOf(answer: Answer): { code: string; message: string } {
  const error = (answer.body as { error?: { code?: unknown; message?: unknown } } | undefined)?.error;
  return {
    code: typeof error?.code === "string" ? error.code : `http_${answer.status}`,
    message: typeof error?.message === "string" ? error.message : `the facilitator answered ${answer.status}`,
  };
}

function header(answer: Answer, name: string): string | undefined {
  const value = answer.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * A client of the facilitator's verify, release, settle and results routes; every outcome is data.
 * `token` (a caller token, or a function returning a fresh one) goes in `Authorization: Bearer`, or with each call of
 * a batch. Verify, release and settle go through the process's batch link to `url` (sharedBatchLink: calls of every
 * gate made in the same turn share one `POST /batch`) unless `batch` is false.
 * @example const facilitator = createFacilitatorClient({ url: 'http://127.0.0.1:4020' })
 */
export function createFacilitatorClient({
  url,
  token,
  timeoutMs = 30_000,
  batch = true,
}: {
  url: string;
  token?: string | (() => string) | undefined;
  timeoutMs?: number;
  batch?: boolean;
}): FacilitatorClient {
  const client = createJsonClient({ baseUrl: url, timeoutMs });
  const tokenNow = () => (typeof token === "function" ? token() : token);
  const auth = (): Record<string, string> => {
    const value = tokenNow();
    return value ? { authorization: `Bearer ${value}` } : {};
  };
  const linked = batch ? sharedBatchLink(url, timeoutMs) : undefined;
  const post = (route: BatchRoute, body: unknown) =>
    linked ? linked.link.call(route, body, tokenNow()) : client.request("POST", `/${route}`, body, auth());

  return {
    async verify(payload, resourceId, maxTimeoutSeconds, requestHash) {
      const answer = await post("verify", { paymentPayload: payload, resourceId, maxTimeoutSeconds, requestHash });
      if (!answer.ok)
        return { kind: "unavailable", code: "facilitator_unavailable", message: answer.error, retryAfter: "2" };
      const body = answer.body as {
        isValid?: unknown;
        payer?: Address;
        idemKey?: Hex;
        invalidReason?: unknown;
        invalidMessage?: unknown;
      };
      if (answer.status === 200 && body?.isValid === true && body.payer && body.idemKey)
        return { kind: "reserved", payer: body.payer, idemKey: body.idemKey };
      if (answer.status === 200 && body?.isValid === false) {
        const reason = isVerifyReason(body.invalidReason) ? body.invalidReason : "invalid_payload";
        return {
          kind: "refused",
          reason,
          message: typeof body.invalidMessage === "string" ? body.invalidMessage : reason,
        };
      }
      const { code, message } = errorOf(answer);
      return {
        kind: "unavailable",
        code: answer.status === 503 ? code : "facilitator_unavailable",
        message,
        retryAfter: header(answer, "retry-after") ?? "2",
      };
    },

    async release({ idemKey, payer, resourceId, strikeReason }) {
      const answer = await post("release", { idemKey, payer, resourceId, ...(strikeReason ? { strikeReason } : {}) });
      if (!answer.ok) return { kind: "failed", message: answer.error };
      if (answer.status !== 200) return { kind: "failed", message: errorOf(answer).message };
      return {
        kind: "released",
        strikeRecorded: (answer.body as { strikeRecorded?: unknown }).strikeRecorded === true,
      };
    },

    async settle({ idemKey, payer, resourceId, amount, response }) {
      const answer = await post("settle", { idemKey, payer, resourceId, amount: amount.toString(), response });
      if (!answer.ok) return { kind: "unavailable", message: answer.error };
      const receipt = (answer.body as { receipt?: unknown } | undefined)?.receipt;
      if (answer.status === 200 && typeof receipt === "string") return { kind: "settled", receipt };
      if (answer.status === 503) return { kind: "pending", retryAfter: header(answer, "retry-after") ?? "2" };
      if (refusedForGood(answer.status)) return { kind: "refused", ...errorOf(answer) };
      return { kind: "unavailable", message: errorOf(answer).message };
    },

    async result(idemKey, payer) {
      const answer = await client.request("GET", `/results/${idemKey}?payer=${payer}`, undefined, auth());
      if (!answer.ok) return { kind: "unavailable", message: answer.error };
      if (answer.status === 404) return { kind: "missing" };
      const body = answer.body as
        | {
            resourceId?: unknown;
            response?: StoredCallResponse;
            receipt?: unknown;
            payment?: unknown;
            requestHash?: unknown;
            settlement?: unknown;
          }
        | undefined;
      const requestHash = typeof body?.requestHash === "string" ? body.requestHash : undefined;
      const settlement = body?.settlement;
      if (answer.status === 202 && (settlement === "reserved" || settlement === "pending")) {
        if (typeof body?.resourceId !== "string") return { kind: "unavailable", message: "a 202 names no resource" };
        const retryAfter = header(answer, "retry-after") ?? "2";
        return {
          kind: "open",
          settlement,
          resourceId: body.resourceId,
          payment: body.payment,
          requestHash,
          retryAfter,
        };
      }
      if (
        answer.status !== 200 ||
        typeof body?.receipt !== "string" ||
        typeof body.resourceId !== "string" ||
        !body.response
      ) {
        return { kind: "unavailable", message: errorOf(answer).message };
      }
      return {
        kind: "found",
        resourceId: body.resourceId,
        response: body.response,
        receipt: body.receipt,
        payment: body.payment,
        requestHash,
      };
    },

    async ready() {
      const answer = await client.request("GET", "/ready");
      return answer.ok && answer.status === 200;
    },

    close() {
      client.close();
      linked?.release();
    },
  };
}
