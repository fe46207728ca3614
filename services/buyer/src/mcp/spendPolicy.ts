import type { Address, Hex } from "viem";
import { BuyerError } from "../sdk/buyerError.ts";
import { formatAmount } from "../sdk/formatAmount.ts";
import type { LedgerView } from "../sdk/openSpendLedger.ts";

/** Limits on what the server may sign, from the environment; an unset rule does not limit. */
export type SpendPolicy = {
  /** The most one call's cap (what it can debit) may be. */
  maxPerCall?: bigint;
  /** A call whose cap is above this is paid only once the user confirms it (MCP elicitation). */
  confirmAbove?: bigint;
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
 * the per-call maximum, then the rolling hourly and daily budgets (debits the chain proved in the window, dated by
 * their block, plus the caps of every payment of this key still held, plus this cap). Returns the refusal, or
 * undefined when the payment is within policy. A policy with budgets needs the ledger's view.
 * @example const refusal = checkSpend(policy, view, { resourceId, creator, cap, now: Date.now() })
 */
export function checkSpend(
  policy: SpendPolicy,
  ledger: LedgerView | undefined,
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
      message: `the call's cap, the most it can debit, is ${formatAmount.text(payment.cap)}: above SPEND_MAX_PER_CALL ${formatAmount.text(policy.maxPerCall)}`,
      limit: policy.maxPerCall.toString(),
    };
  const windows = [
    ["SPEND_HOURLY_BUDGET", policy.hourlyBudget, HOUR_MS, "hourly"],
    ["SPEND_DAILY_BUDGET", policy.dailyBudget, 24 * HOUR_MS, "daily"],
  ] as const;
  for (const [rule, budget, span, name] of windows) {
    if (budget === undefined) continue;
    if (!ledger) throw new Error(`${rule} needs the spend ledger's view`);
    const used = ledger.debitedSince(payment.now - span) + ledger.held;
    const remaining = budget > used ? budget - used : 0n;
    if (payment.cap > remaining)
      return {
        rule,
        message: `the call's cap, the most it can debit, is ${formatAmount.text(payment.cap)}: above what is left of the ${name} budget (${formatAmount.text(remaining)} of ${formatAmount.text(budget)})`,
        limit: budget.toString(),
        remaining: remaining.toString(),
      };
  }
  return undefined;
}

/**
 * What is left of each budget now (for `get_balance`): `spent` is what the chain debited in the window, `held` the
 * caps of payments signed and not yet proven debited or void, `remaining` the budget less both; amounts in base units
 * and USDC.
 * @example const left = remainingBudgets(policy, view, Date.now())
 */
export function remainingBudgets(policy: SpendPolicy, ledger: LedgerView, now: number) {
  const left = (budget: bigint | undefined, span: number) => {
    if (budget === undefined) return undefined;
    const spent = ledger.debitedSince(now - span);
    const used = spent + ledger.held;
    return {
      budget: formatAmount(budget),
      spent: formatAmount(spent),
      held: formatAmount(ledger.held),
      remaining: formatAmount(budget > used ? budget - used : 0n),
    };
  };
  return {
    maxPerCall: policy.maxPerCall === undefined ? undefined : formatAmount(policy.maxPerCall),
    confirmAbove: policy.confirmAbove === undefined ? undefined : formatAmount(policy.confirmAbove),
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
