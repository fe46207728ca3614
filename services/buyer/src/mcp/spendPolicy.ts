import type { Address, Hex } from "viem";
import { BuyerError } from "../sdk/buyerError.ts";
import type { SpendLedger } from "./spendLedger.ts";

/** Limits on what the server may sign, from the environment; an unset rule does not limit. */
export type SpendPolicy = {
  maxPerCall?: bigint;
  hourlyBudget?: bigint;
  dailyBudget?: bigint;
  /** Lowercase resource ids a payment may go to. */
  allowResources?: Hex[];
  /** Checksummed creator addresses a payment may go to. */
  allowCreators?: Address[];
};

/** Why a payment was refused, with what is left, so the agent can tell the user. */
export type SpendRefusal = {
  rule:
    | "SPEND_MAX_PER_CALL"
    | "SPEND_HOURLY_BUDGET"
    | "SPEND_DAILY_BUDGET"
    | "SPEND_ALLOW_RESOURCES"
    | "SPEND_ALLOW_CREATORS";
  message: string;
  limit?: string;
  remaining?: string;
};

const HOUR_MS = 3_600_000;

/**
 * Decides whether one payment of at most `cap` (what the buyer signs, the worst case) may be signed: allow-lists,
 * the per-call maximum, then the rolling hourly and daily budgets (settled debits in the window, plus the caps of
 * payments still in flight, plus this cap). Returns the refusal, or undefined when the payment is within policy.
 * @example const refusal = checkSpend(policy, ledger, { resourceId, creator, cap, now: Date.now() })
 */
export function checkSpend(
  policy: SpendPolicy,
  ledger: SpendLedger,
  payment: { resourceId: Hex; creator?: Address; cap: bigint; now: number },
): SpendRefusal | undefined {
  if (policy.allowResources && !policy.allowResources.includes(payment.resourceId.toLowerCase() as Hex))
    return { rule: "SPEND_ALLOW_RESOURCES", message: `resource ${payment.resourceId} is not in SPEND_ALLOW_RESOURCES` };
  if (policy.allowCreators && (!payment.creator || !policy.allowCreators.includes(payment.creator)))
    return {
      rule: "SPEND_ALLOW_CREATORS",
      message: `the resource's creator ${payment.creator ?? "(unknown)"} is not in SPEND_ALLOW_CREATORS`,
    };
  if (policy.maxPerCall !== undefined && payment.cap > policy.maxPerCall)
    return {
      rule: "SPEND_MAX_PER_CALL",
      message: `the call's cap ${payment.cap} exceeds SPEND_MAX_PER_CALL ${policy.maxPerCall}`,
      limit: policy.maxPerCall.toString(),
    };
  const windows = [
    ["SPEND_HOURLY_BUDGET", policy.hourlyBudget, HOUR_MS, "hourly"],
    ["SPEND_DAILY_BUDGET", policy.dailyBudget, 24 * HOUR_MS, "daily"],
  ] as const;
  for (const [rule, budget, span, name] of windows) {
    if (budget === undefined) continue;
    const used = ledger.settledSince(payment.now - span) + ledger.inFlight();
    const remaining = budget > used ? budget - used : 0n;
    if (payment.cap > remaining)
      return {
        rule,
        message: `the call's cap ${payment.cap} exceeds what is left of the ${name} budget (${remaining} of ${budget})`,
        limit: budget.toString(),
        remaining: remaining.toString(),
      };
  }
  return undefined;
}

/**
 * What is left of each budget now (for `get_balance`).
 * @example const left = remainingBudgets(policy, ledger, Date.now())
 */
export function remainingBudgets(policy: SpendPolicy, ledger: SpendLedger, now: number) {
  const left = (budget: bigint | undefined, span: number) => {
    if (budget === undefined) return undefined;
    const used = ledger.settledSince(now - span) + ledger.inFlight();
    return {
      budget: budget.toString(),
      spent: used.toString(),
      remaining: (budget > used ? budget - used : 0n).toString(),
    };
  };
  return {
    maxPerCall: policy.maxPerCall?.toString(),
    hourly: left(policy.hourlyBudget, HOUR_MS),
    daily: left(policy.dailyBudget, 24 * HOUR_MS),
    allowResources: policy.allowResources,
    allowCreators: policy.allowCreators,
  };
}

/** A payment the spend policy refused before anything was signed. */
export class SpendRefusedError extends BuyerError {
  override name = "SpendRefusedError";
  readonly refusal: SpendRefusal;
  constructor(refusal: SpendRefusal) {
    super("spend_refused", `refused by the spend policy (${refusal.rule}): ${refusal.message}; nothing was signed`);
    this.refusal = refusal;
  }
}
