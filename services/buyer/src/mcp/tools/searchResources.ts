import { z } from "zod";
import { BuyerError } from "../../sdk/buyerError.ts";
import { formatAmount } from "../../sdk/formatAmount.ts";
import { searchResources } from "../../sdk/searchResources.ts";
import { requireSettings } from "../buyerEnvironment.ts";
import { toolAnswer } from "../toolResult.ts";
import type { ToolContext } from "./toolContext.ts";
import { amount, common } from "./toolShapes.ts";

/**
 * Registers `search_resources`: the marketplace index, searched by meaning (`q`) and filtered, limited to the scope;
 * rows are display data.
 * @example registerSearchResources(createToolContext({ server, config, source, log }))
 */
export function registerSearchResources(tool: ToolContext): void {
  tool.server.registerTool(
    "search_resources",
    {
      title: "Search paid endpoints",
      description: `Searches the marketplace index of paid endpoints by meaning (q: what the endpoint should do, best match first) and by filters. Rows are display data: prices and addresses are re-checked against the chain before any payment. Amounts are in base units (1000000 = 1 USDC); each row's usdc shows its base price, per-KB price, cap (pricing.max, the most one call can debit) and bond in USDC.${tool.scoped}`,
      inputSchema: z.strictObject({
        q: z
          .string()
          .optional()
          .describe(
            'Words saying what the endpoint should do, e.g. "palindrome check": only endpoints whose card holds any of them, best match first (combines with every filter). The marketplace refuses a query that is empty, too long or of too many words with invalid_request, saying its bounds',
          ),
        category: z.string().optional(),
        active: z.boolean().optional(),
        minBond: amount.optional(),
        minBasePrice: amount.optional(),
        maxBasePrice: amount.optional(),
        minReputation: z.number().min(0).max(100).optional(),
        minUptime: z.number().min(0).max(100).optional(),
        payable: z
          .boolean()
          .optional()
          .describe(
            "true: only endpoints whose base price still covers settlement at the chain's current fee (a payment to any other is refused at verify until its creator re-prices); false: only those",
          ),
        limit: z.int().min(1).max(1000).optional(),
        offset: z.int().min(0).optional(),
      }),
      outputSchema: {
        ...common,
        resources: z.array(z.record(z.string(), z.unknown())),
        total: z.number(),
        skipped: z.number(),
      },
      annotations: { readOnlyHint: true, openWorldHint: true },
    },
    (filters) =>
      tool.run(async (env) => {
        requireSettings(env, ["MARKETPLACE_URL"]);
        if (!env.marketplaceUrl) throw new BuyerError("bad_setting", "MARKETPLACE_URL is not set");
        const found = await searchResources(env.marketplaceUrl, filters);
        const resources = found.resources
          .filter((record) => tool.inScope(record.resourceId))
          .map((record) => ({
            ...record,
            usdc: {
              base: formatAmount(record.pricing.base).usdc,
              perKB: formatAmount(record.pricing.perKB).usdc,
              cap: formatAmount(record.pricing.max).usdc,
              bond: formatAmount(record.bond).usdc,
            },
          }));
        return toolAnswer(env.mode, {
          resources,
          total: tool.config.scope ? resources.length : found.total,
          skipped: found.skipped,
        });
      }),
  );
}
