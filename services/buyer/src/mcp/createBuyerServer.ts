import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { Hex } from "viem";
import { z } from "zod";
import { isChainUnavailable } from "../../../protocol/chain.ts";
import { BuyerError } from "../sdk/buyerError.ts";
import { CallFailedError, payForCall } from "../sdk/payForCall.ts";
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
        "Discover paid endpoints (search_resources, get_card), see what a call costs (quote), pay for a call (call_resource, spends money under the configured spend policy), check funds (get_balance) and recover a paid result whose answer was lost (recover_result).",
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
      description: `Calls a paid endpoint and pays for it from the buyer's escrow balance: pins the quote against the chain, checks the spend policy, signs a payment capped at the registered max, calls, and verifies the receipt and the debit on chain. Returns the answer, the receipt, the amount paid and the transaction hash.${scoped}`,
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
        const early = checkSpend({ allowResources: config.policy.allowResources }, ledger, {
          resourceId: id,
          cap: 0n,
          now: Date.now(),
        });
        if (early) throw new SpendRefusedError(early);
        const pinned = await readPinnedCard(chain, id);
        let release: (() => void) | undefined;
        try {
          const paid = await payForCall({
            chain,
            account,
            callUrl: pinned.card.url,
            body: input.body ?? {},
            pinned,
            beforeSign: (terms) => {
              const refusal = checkSpend(config.policy, ledger, {
                resourceId: terms.resourceId,
                creator: terms.creator,
                cap: terms.cap,
                now: Date.now(),
              });
              if (refusal) throw new SpendRefusedError(refusal);
              release = ledger.hold(terms.cap);
            },
            onSigned: (idemKey) => log(`service-buyer: signed payment ${idemKey} for ${id}`),
          });
          const { transaction } = await verifyDebit(chain, paid.receipt);
          ledger.record({
            at: Date.parse(paid.receipt.settledAt),
            buyer: account.address,
            escrow: chain.escrow,
            resourceId: paid.receipt.payTo,
            idemKey: paid.receipt.idemKey,
            amount: paid.receipt.amount,
            transaction,
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
        } catch (error) {
          if (error instanceof CallFailedError && error.code === "paid_unknown")
            throw new BuyerError("paid_unknown", `${error.message} (recover_result)`);
          throw error;
        } finally {
          release?.();
        }
      }),
  );

  server.registerTool(
    "get_balance",
    {
      title: "Buyer balance and budgets",
      description:
        "The buyer's address (never the key), stablecoin in the wallet, balance in escrow, pending withdrawal, the on-chain spend limit in force and a pending tightening of it, and what is left of the spend policy's budgets.",
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
          policy: JSON.parse(JSON.stringify(remainingBudgets(config.policy, env.ledger, Date.now()))),
        });
      }),
  );

  server.registerTool(
    "recover_result",
    {
      title: "Recover a paid result",
      description: `Fetches the stored result of a call that was paid but whose answer was lost (kept 24 h), by the idemKey call_resource reported; checks its receipt and the debit on chain. Pays nothing.${scoped}`,
      inputSchema: {
        idemKey: z
          .string()
          .regex(/^0x[0-9a-fA-F]{64}$/)
          .describe("The payment's idemKey"),
      },
      outputSchema: {
        ...common,
        resourceId: z.string(),
        status: z.number(),
        body: z.unknown(),
        amount,
        transaction: z.string(),
        receipt: receiptShape,
      },
      annotations: { readOnlyHint: true, openWorldHint: true },
    },
    (input) =>
      run(async (env) => {
        requireSettings(env, ["BUYER_PRIVATE_KEY", "FACILITATOR_URL"]);
        const chain = chainOf(env);
        if (!env.account || !env.ledger) throw new BuyerError("key_unavailable", "BUYER_PRIVATE_KEY is not set");
        if (!env.facilitatorUrl) throw new BuyerError("bad_setting", "FACILITATOR_URL is not set: results live there");
        const result = await recoverResult({
          facilitatorUrl: env.facilitatorUrl,
          idemKey: input.idemKey as Hex,
          payer: env.account.address,
        });
        target(result.resourceId);
        const { transaction } = await verifyDebit(chain, result.receipt);
        env.ledger.record({
          at: Date.parse(result.receipt.settledAt),
          buyer: env.account.address,
          escrow: chain.escrow,
          resourceId: result.receipt.payTo,
          idemKey: result.receipt.idemKey,
          amount: result.receipt.amount,
          transaction,
        });
        return toolAnswer(env.mode, {
          resourceId: result.resourceId,
          status: result.status,
          body: result.body,
          amount: result.receipt.amount,
          transaction,
          receipt: result.receipt,
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
