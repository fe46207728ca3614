import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { Hex } from "viem";
import { z } from "zod";
import { isChainUnavailable } from "../../../protocol/chain.ts";
import { BuyerError } from "../sdk/buyerError.ts";
import { payForCall } from "../sdk/payForCall.ts";
import { PaymentUnknownError } from "../sdk/paymentUnknownError.ts";
import { readBalance } from "../sdk/readBalance.ts";
import type { PinnedCard } from "../sdk/readPinnedCard.ts";
import { readPinnedCard } from "../sdk/readPinnedCard.ts";
import { recoverResult } from "../sdk/recoverResult.ts";
import { requestQuote } from "../sdk/requestQuote.ts";
import { searchResources } from "../sdk/searchResources.ts";
import { verifyDebit } from "../sdk/verifyDebit.ts";
import type { BuyerEnvironment, EnvironmentSource } from "./buyerEnvironment.ts";
import { requireSettings } from "./buyerEnvironment.ts";
import type { BuyerConfig } from "./loadBuyerConfig.ts";
import type { ServerLog } from "./serverLog.ts";
import { writeStderr } from "./serverLog.ts";
import { checkSpend, remainingBudgets, SpendRefusedError } from "./spendPolicy.ts";
import { toolAnswer, toolError } from "./toolResult.ts";

const resourceId = z
  .string()
  .regex(/^0x[0-9a-fA-F]{64}$/, "a resource id is 0x followed by 64 hex digits")
  .describe("The resource id (bytes32) from search_resources");
const amount = z.string().describe("Base units of the stablecoin (6 decimals: 1000000 = 1 USDC)");
const common = { mode: z.enum(["demo", "live"]), notice: z.string().optional() };
const receiptShape = z.looseObject({
  /** Absent from a committed receipt (answered before mining); the tool's own `transaction` is the verified one. */
  transaction: z.string().optional(),
  status: z.enum(["committed", "confirmed"]).optional(),
  settlementId: z.string().optional(),
  payer: z.string(),
  payTo: z.string(),
  idemKey: z.string(),
  amount,
  creatorAmount: amount,
  treasuryAmount: amount,
  settledAt: z.string(),
});
const pinnedShape = z.object({
  resourceId: z.string(),
  escrow: z.string(),
  asset: z.string(),
  cap: amount,
  creator: z.string(),
});

/**
 * The buyer MCP server: six tools over the buyer SDK, limited to `config.scope`, paying only within the spend
 * policy. `source` supplies the network (live settings, or the in-process demo started on the first tool call);
 * `log` receives diagnostic lines (stderr by default).
 * @example const server = createBuyerServer(config, liveEnvironment(config)); await server.connect(transport)
 */
export function createBuyerServer(
  config: BuyerConfig,
  source: EnvironmentSource,
  log: ServerLog = writeStderr,
): McpServer {
  const server = new McpServer(
    { name: "service-buyer", version: "0.1.0" },
    {
      instructions:
        "Discover paid endpoints (search_resources, get_card), see what a call costs (quote), pay for a call (call_resource, spends money under the configured spend policy), check funds (get_balance) and find out what became of a payment that ended in payment_unknown (recover_result, by its idemKey: never pay again for it).",
    },
  );
  const scope = config.scope;
  const scoped = scope ? ` Limited to ${scope.length === 1 ? "resource" : "resources"} ${scope.join(", ")}.` : "";
  const inScope = (id: string) => !scope || scope.includes(id.toLowerCase() as Hex);
  const target = (id: string | undefined): Hex => {
    const chosen = id ?? (scope?.length === 1 ? scope[0] : undefined);
    if (!chosen) throw new BuyerError("invalid_request", "resourceId is required");
    if (!inScope(chosen))
      throw new BuyerError("out_of_scope", `resource ${chosen} is outside this server's scope (SERVICE_RESOURCE_IDS)`);
    return chosen.toLowerCase() as Hex;
  };
  const targetInput = scope?.length === 1 ? resourceId.optional() : resourceId;
  const chainOf = (env: BuyerEnvironment) => {
    requireSettings(env, ["RPC_URL", "ESCROW_ADDRESS"]);
    if (!env.chain) throw new BuyerError("bad_setting", "RPC_URL and ESCROW_ADDRESS are required");
    return env.chain;
  };
  const run = async (work: (env: BuyerEnvironment) => Promise<CallToolResult>): Promise<CallToolResult> => {
    let env: BuyerEnvironment | undefined;
    try {
      requireSettings({ mode: config.mode, problems: config.problems }, ["SERVICE_RESOURCE_IDS"]);
      env = await source.get();
      return await work(env);
    } catch (error) {
      if (!(error instanceof BuyerError) && !isChainUnavailable(error))
        log(`service-buyer: ${(error as Error).stack ?? error}`);
      return toolError(env?.mode ?? config.mode, error);
    }
  };
  const pinnedView = (pinned: PinnedCard) => ({
    resourceId: pinned.resourceId,
    escrow: pinned.escrow,
    asset: pinned.asset,
    cap: pinned.cap.toString(),
    creator: pinned.creator,
  });

  server.registerTool(
    "search_resources",
    {
      title: "Search paid endpoints",
      description: `Searches the marketplace index of paid endpoints. Rows are display data: prices and addresses are re-checked against the chain before any payment.${scoped}`,
      inputSchema: {
        category: z.string().optional(),
        active: z.boolean().optional(),
        minBond: amount.optional(),
        minBasePrice: amount.optional(),
        maxBasePrice: amount.optional(),
        minReputation: z.number().min(0).max(100).optional(),
        minUptime: z.number().min(0).max(100).optional(),
        limit: z.int().min(1).max(1000).optional(),
        offset: z.int().min(0).optional(),
      },
      outputSchema: {
        ...common,
        resources: z.array(z.record(z.string(), z.unknown())),
        total: z.number(),
        skipped: z.number(),
      },
      annotations: { readOnlyHint: true, openWorldHint: true },
    },
    (filters) =>
      run(async (env) => {
        requireSettings(env, ["MARKETPLACE_URL"]);
        if (!env.marketplaceUrl) throw new BuyerError("bad_setting", "MARKETPLACE_URL is not set");
        const found = await searchResources(env.marketplaceUrl, filters);
        const resources = found.resources.filter((record) => inScope(record.resourceId));
        return toolAnswer(env.mode, {
          resources,
          total: scope ? resources.length : found.total,
          skipped: found.skipped,
        });
      }),
  );

  server.registerTool(
    "get_card",
    {
      title: "Read an endpoint's card",
      description: `Reads a resource's agent card from the URI registered on chain, checked against the strict schema, with its money fields (escrow, asset, payTo, cap) pinned to the chain.${scoped}`,
      inputSchema: { resourceId: targetInput },
      outputSchema: {
        ...common,
        pinned: pinnedShape,
        active: z.boolean(),
        cardUrl: z.string(),
        card: z.record(z.string(), z.unknown()),
      },
      annotations: { readOnlyHint: true, openWorldHint: true },
    },
    (input) =>
      run(async (env) => {
        const id = target(input.resourceId);
        const pinned = await readPinnedCard(chainOf(env), id);
        return toolAnswer(env.mode, {
          pinned: pinnedView(pinned),
          active: pinned.active,
          cardUrl: pinned.cardUri,
          card: pinned.card,
        });
      }),
  );

  const bodyInput = z.unknown().optional().describe("The JSON request body of the call (see the card's skills)");

  server.registerTool(
    "quote",
    {
      title: "Quote a call",
      description: `Asks a resource what a call with this body would cost (its 402 quote) and pins the terms against the chain. Signs nothing, pays nothing.${scoped}`,
      inputSchema: { resourceId: targetInput, body: bodyInput },
      outputSchema: {
        ...common,
        callUrl: z.string(),
        pinned: pinnedShape.extend({ maxTimeoutSeconds: z.number() }),
        quote: z.record(z.string(), z.unknown()),
        signed: z.literal(false),
      },
      annotations: { readOnlyHint: true, openWorldHint: true },
    },
    (input) =>
      run(async (env) => {
        const id = target(input.resourceId);
        const chain = chainOf(env);
        const pinned = await readPinnedCard(chain, id);
        const { quote, terms } = await requestQuote({
          chain,
          callUrl: pinned.card.url,
          body: input.body ?? {},
          pinned,
        });
        return toolAnswer(env.mode, {
          callUrl: pinned.card.url,
          pinned: { ...pinnedView(pinned), cap: terms.cap.toString(), maxTimeoutSeconds: terms.maxTimeoutSeconds },
          quote,
          signed: false,
        });
      }),
  );

  server.registerTool(
    "call_resource",
    {
      title: "Pay for and call an endpoint (spends money)",
      description: `Calls a paid endpoint and pays for it from the buyer's escrow balance: pins the quote against the chain, checks the spend policy, signs a payment capped at the registered max, calls, and verifies the receipt and the debit on chain. Returns the answer, the receipt, the amount paid and the transaction hash. An error payment_unknown means the payment was sent and may have been debited: do not call again, call recover_result with its idemKey.${scoped}`,
      inputSchema: { resourceId: targetInput, body: bodyInput },
      outputSchema: {
        ...common,
        resourceId: z.string(),
        body: z.unknown(),
        amount,
        cap: amount,
        transaction: z.string(),
        idemKey: z.string(),
        receipt: receiptShape,
      },
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
    },
    (input) =>
      run(async (env) => {
        const id = target(input.resourceId);
        requireSettings(env, ["BUYER_PRIVATE_KEY", ...SPEND_SETTINGS]);
        const chain = chainOf(env);
        const { account, ledger } = env;
        if (!account || !ledger) throw new BuyerError("key_unavailable", "BUYER_PRIVATE_KEY is not set");
        const early = checkSpend({ allowResources: config.policy.allowResources }, undefined, {
          resourceId: id,
          cap: 0n,
          now: Date.now(),
        });
        if (early) throw new SpendRefusedError(early);
        const pinned = await readPinnedCard(chain, id);
        const paid = await payForCall({
          chain,
          account,
          callUrl: pinned.card.url,
          body: input.body ?? {},
          pinned,
          beforeSign: (terms, payment) =>
            ledger.hold({ ...payment, resourceId: terms.resourceId, cap: terms.cap }, (view) => {
              const refusal = checkSpend(config.policy, view, {
                resourceId: terms.resourceId,
                creator: terms.creator,
                cap: terms.cap,
                now: Date.now(),
              });
              if (refusal) throw new SpendRefusedError(refusal);
            }),
          onSigned: (idemKey) => log(`service-buyer: signed payment ${idemKey} for ${id}`),
        });
        const { transaction } = await verifyDebit(chain, paid.receipt).catch((error: Error) => {
          throw new PaymentUnknownError({
            idemKey: paid.idemKey,
            validBefore: paid.validBefore,
            reason: `the answer came, but its debit is not proven on chain: ${error.message.split("\n")[0]}`,
            cause: error,
          });
        });
        return toolAnswer(env.mode, {
          resourceId: id,
          body: paid.body,
          amount: paid.receipt.amount,
          cap: paid.terms.cap.toString(),
          transaction,
          idemKey: paid.idemKey,
          receipt: paid.receipt,
        });
      }),
  );

  server.registerTool(
    "get_balance",
    {
      title: "Buyer balance and budgets",
      description:
        "The buyer's address (never the key), stablecoin in the wallet, balance in escrow, pending withdrawal, the on-chain spend limit in force and a pending tightening of it, and each budget of the spend policy: spent (what the chain debited this key in the window), held (caps of payments signed whose outcome the chain has not told yet) and remaining.",
      inputSchema: {},
      outputSchema: {
        ...common,
        address: z.string(),
        wallet: amount,
        escrow: amount,
        pendingWithdrawal: amount,
        spendLimit: z.object({
          limit: amount,
          periodSeconds: z.string(),
          spentInWindow: amount,
          pending: z.object({ limit: amount, periodSeconds: z.string(), effectiveAt: z.string() }).nullable(),
        }),
        policy: z.record(z.string(), z.unknown()),
      },
      annotations: { readOnlyHint: true, openWorldHint: true },
    },
    () =>
      run(async (env) => {
        requireSettings(env, ["BUYER_PRIVATE_KEY"]);
        const chain = chainOf(env);
        if (!env.account || !env.ledger) throw new BuyerError("key_unavailable", "BUYER_PRIVATE_KEY is not set");
        const balance = await readBalance(chain, env.account.address);
        return toolAnswer(env.mode, {
          address: balance.address,
          wallet: balance.wallet.toString(),
          escrow: balance.escrow.toString(),
          pendingWithdrawal: balance.pendingWithdrawal.toString(),
          spendLimit: {
            limit: balance.spendLimit.limit.toString(),
            periodSeconds: balance.spendLimit.periodSeconds.toString(),
            spentInWindow: balance.spendLimit.spentInWindow.toString(),
            pending: balance.spendLimit.pending && {
              limit: balance.spendLimit.pending.limit.toString(),
              periodSeconds: balance.spendLimit.pending.periodSeconds.toString(),
              effectiveAt: balance.spendLimit.pending.effectiveAt.toString(),
            },
          },
          policy: JSON.parse(JSON.stringify(remainingBudgets(config.policy, await env.ledger.read(), Date.now()))),
        });
      }),
  );

  server.registerTool(
    "recover_result",
    {
      title: "Find out what became of a payment",
      description: `Tells what became of a payment by the idemKey call_resource reported (after payment_unknown, or a lost answer): the chain says whether it was debited, how much and when ("paid"), that it can no longer be ("not_paid"), or that it still may be until validBefore ("pending"). The answer the facilitator keeps for 24 h (FACILITATOR_URL) comes back when it agrees with the chain. Pays nothing; never pay again for a payment that is pending.${scoped}`,
      inputSchema: {
        idemKey: z
          .string()
          .regex(/^0x[0-9a-fA-F]{64}$/)
          .describe("The payment's idemKey"),
      },
      outputSchema: {
        ...common,
        outcome: z.enum(["paid", "not_paid", "pending"]),
        message: z.string(),
        resourceId: z.string(),
        amount: amount.optional(),
        transaction: z.string().optional(),
        debitedAt: z.string().optional(),
        validBefore: z.string().optional(),
        status: z.number().optional(),
        body: z.unknown().optional(),
        receipt: receiptShape.optional(),
      },
      annotations: { readOnlyHint: true, openWorldHint: true },
    },
    (input) =>
      run(async (env) => {
        requireSettings(env, ["BUYER_PRIVATE_KEY", "FACILITATOR_URL"]);
        chainOf(env);
        if (!env.account || !env.ledger) throw new BuyerError("key_unavailable", "BUYER_PRIVATE_KEY is not set");
        const idemKey = input.idemKey.toLowerCase() as Hex;
        const { hold, debit, released } = (await env.ledger.read()).payment(idemKey);
        const stored = env.facilitatorUrl
          ? await recoverResult({
              facilitatorUrl: env.facilitatorUrl,
              idemKey,
              payer: env.account.address,
              cap: hold && BigInt(hold.cap),
            }).catch((error: Error) => {
              if (error instanceof BuyerError && error.code === "not_found") return undefined;
              if (debit || hold) return undefined;
              throw error;
            })
          : undefined;
        const resourceId = debit?.resourceId ?? hold?.resourceId ?? stored?.resourceId;
        if (!resourceId)
          throw new BuyerError(
            "not_found",
            `no payment ${idemKey} of this buyer on chain, in the ledger or at the facilitator`,
          );
        target(resourceId);
        const agrees =
          stored &&
          (!debit || (stored.receipt.amount === debit.amount && stored.resourceId.toLowerCase() === debit.resourceId));
        const answer = agrees ? { status: stored.status, body: stored.body, receipt: stored.receipt } : {};
        if (debit)
          return toolAnswer(env.mode, {
            outcome: "paid",
            message: agrees
              ? "debited on chain; the answer is the one the facilitator kept"
              : "debited on chain; the facilitator keeps no answer that agrees with the debit",
            resourceId,
            amount: debit.amount,
            transaction: debit.transaction,
            debitedAt: new Date(debit.at).toISOString(),
            ...answer,
          });
        if (released)
          return toolAnswer(env.mode, {
            outcome: "not_paid",
            message: "not debited, and past its validBefore it never can be: nothing was paid",
            resourceId,
          });
        const validBefore = hold ? new Date(Number(hold.validBefore) * 1000).toISOString() : undefined;
        return toolAnswer(env.mode, {
          outcome: "pending",
          message: `not debited yet, and it still may be${validBefore ? ` until ${validBefore}` : ""}: ask again later, and do not pay again meanwhile`,
          resourceId,
          validBefore,
          ...answer,
        });
      }),
  );

  return server;
}

const SPEND_SETTINGS = [
  "SPEND_MAX_PER_CALL",
  "SPEND_HOURLY_BUDGET",
  "SPEND_DAILY_BUDGET",
  "SPEND_ALLOW_RESOURCES",
  "SPEND_ALLOW_CREATORS",
] as const;
