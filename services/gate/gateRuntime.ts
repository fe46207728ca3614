import type { Context, Middleware } from "koa";
import type { Logger } from "pino";
import type { Address, Hex } from "viem";
import type { QuoteError } from "../protocol/reasons.ts";
import type { PaymentPayload } from "../protocol/schemas/paymentPayload.ts";
import type { FacilitatorClient, StoredCallResponse } from "./createFacilitatorClient.ts";
import type { HandlerLoad } from "./createHandlerLoad.ts";
import type { ExactFloorReader } from "./exactFloorReader.ts";
import type { HandlerResult } from "./handler.ts";
import type { PendingSettlements } from "./pendingSettlements.ts";
import type { ResolvedGateConfig } from "./resolveGateConfig.ts";
import type { SchemaCheck } from "./schemaCheck.ts";

/** A validated response whose settlement the chain has not confirmed yet; a retry of the same payment settles it again. */
export type PendingSettlement = {
  amount: bigint;
  response: StoredCallResponse;
  text: string;
  expiresAt: number;
  /** The payment this response was produced for; only the same payment, byte for byte, may settle it again. */
  payment: PaymentPayload;
  /** The request it answers (requestHash.ts): only the same request may have it again. */
  requestHash: Hex;
};

/** A payment as the facilitator names its reservation: a nonce is each buyer's own, so the payer goes with it. */
export type PaymentKey = { idemKey: Hex; payer: Address };

/**
 * One string per payment key, for the gate's maps of payments in flight and pending.
 * @example runtime.pending.get(keyOfPayment({ idemKey, payer }))
 */
export const keyOfPayment = (key: PaymentKey): string => `${key.payer.toLowerCase()}:${key.idemKey.toLowerCase()}`;

/** Why a handler run failed: the strike reason it would carry, and a short message. */
export type HandlerFailure = { strikeReason: string; message: string };

/** What one `POST /call` accumulates as it passes the gate's steps. */
export type GateState = {
  rawBody?: Buffer;
  body?: Record<string, unknown>;
  paymentHeader?: string;
  payment?: PaymentPayload;
  idemKey?: Hex;
  payer?: Address;
  /** The request's hash (method, path, body bytes), which the reservation is bound to. */
  requestHash?: Hex;
  handlerResult?: HandlerResult;
  /** Set by a step that found the handler's answer failing; `releaseOnFailure` decides whether it is a strike. */
  failure?: HandlerFailure;
  response?: { status: number; text: string; json: unknown };
  amount?: bigint;
};

/**
 * A value an earlier step of the gate set; its absence means the steps run out of order, a bug of the gate that
 * releases the reservation without a strike (500 `internal_error`).
 * @example const idemKey = stepValue(koa.state, "idemKey");
 */
export function stepValue<K extends keyof GateState>(state: GateState, key: K): NonNullable<GateState[K]> {
  const value = state[key];
  if (value === undefined || value === null) throw new Error(`gate step order: ${key} was not set by an earlier step`);
  return value as NonNullable<GateState[K]>;
}

/** A step of the gate. */
export type GateMiddleware = Middleware<GateState>;

/** Everything the gate's steps share: configuration, facilitator client, compiled schemas, the quote and local payment state. */
export type GateRuntime = {
  config: ResolvedGateConfig;
  facilitator: FacilitatorClient;
  logger: Logger;
  /** The request and response schemas' checks (schemaCheck.ts: off the event loop where a value can make one slow). */
  checkRequest: SchemaCheck;
  checkResponse: SchemaCheck;
  sendQuote(koa: Context, error: QuoteError): Promise<void>;
  /** The facilitator's least `exact` amount (the flat price when above the cap), shared by the process's gates. */
  exactFloor: ExactFloorReader;
  /** Payments (keyOfPayment) this gate instance is verifying, running or settling now, with their request's hash. */
  inFlight: Map<string, Hex>;
  /** The handler runs under way, and the one run (a failure's reproduction) that may hold the handler alone. */
  load: HandlerLoad;
  /** Runs the resource's sample request alone on an idle, ready handler to tell a creator's fault from a buyer's. */
  reproduce(): Promise<HandlerFailure | "passed" | "no_quiet_moment">;
  /** Settlements answered 503 here, by payment (keyOfPayment), until their authorization expires (bounded). */
  pending: PendingSettlements;
};
