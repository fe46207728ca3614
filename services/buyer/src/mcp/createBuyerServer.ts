import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { EnvironmentSource } from "./buyerEnvironment.ts";
import { listOwnToolSchemas } from "./listOwnToolSchemas.ts";
import type { BuyerConfig } from "./loadBuyerConfig.ts";
import { createResourceTools } from "./resourceTools.ts";
import type { ServerLog } from "./serverLog.ts";
import { writeStderr } from "./serverLog.ts";
import { registerAddTools } from "./tools/addTools.ts";
import { registerCallResource } from "./tools/callResource.ts";
import { registerDeposit } from "./tools/deposit.ts";
import { registerGetBalance } from "./tools/getBalance.ts";
import { registerGetCard } from "./tools/getCard.ts";
import { registerListPayments } from "./tools/listPayments.ts";
import { registerQuote } from "./tools/quote.ts";
import { registerRecoverResult } from "./tools/recoverResult.ts";
import { registerRequestWithdrawal } from "./tools/requestWithdrawal.ts";
import { registerSearchResources } from "./tools/searchResources.ts";
import { registerSetSpendLimit } from "./tools/setSpendLimit.ts";
import type { ToolContext } from "./tools/toolContext.ts";
import { createToolContext } from "./tools/toolContext.ts";
import { registerWithdraw } from "./tools/withdraw.ts";

/** The server's tools, in the order it lists them: each file registers one. */
const BUYER_TOOLS: readonly ((tool: ToolContext) => void)[] = [
  registerSearchResources,
  registerGetCard,
  registerQuote,
  registerCallResource,
  registerGetBalance,
  registerRecoverResult,
  registerListPayments,
  registerDeposit,
  registerRequestWithdrawal,
  registerWithdraw,
  registerSetSpendLimit,
];

/**
 * The buyer MCP server: eleven tools over the buyer SDK, limited to `config.scope`, paying only within the spend
 * policy; a typed tool per resource of the scope (or of `SERVICE_TOOL_RESOURCE_IDS`), and in an unscoped server
 * `add_tools`, which adds them for resources found by search (`resourceTools`). `source` supplies the network (live
 * settings, or the in-process demo, started on the first tool call, or at once for the typed tools of a scope);
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
        "Discover paid endpoints (search_resources, get_card), see what a call costs and the most it can debit (quote), pay for a call (call_resource, spends money under the configured spend policy; above SPEND_CONFIRM_ABOVE the user is asked first), check funds and budgets (get_balance), review past payments (list_payments), find out what became of a payment that ended in payment_unknown (recover_result, by its idemKey: never pay again for it), fund the escrow (deposit), take money out (request_withdrawal, then withdraw a day later) and set the escrow's own spend limit (set_spend_limit). A resource can also be called through a tool of its own, named after its slug, whose arguments are the resource's request fields and whose output is typed by its response schema: listed for the resources this server is scoped to, and added for resources found by search with add_tools. Amounts are in base units of the stablecoin and in USDC (1000000 = 1 USDC).",
    },
  );
  const tool = createToolContext({ server, config, source, log });
  const resources = createResourceTools(tool);
  listOwnToolSchemas(server, resources);
  for (const register of BUYER_TOOLS) register(tool);
  if (!config.scope) registerAddTools(tool, resources);
  return server;
}
