import { z } from "zod";
import { SCHEME_ESCROW } from "../../../../protocol/constants.ts";
import { PinError } from "../../sdk/pinError.ts";
import { readPinnedCard } from "../../sdk/readPinnedCard.ts";
import { requestQuote } from "../../sdk/requestQuote.ts";
import { describePrice } from "../describePrice.ts";
import { toolAnswer } from "../toolResult.ts";
import type { ToolContext } from "./toolContext.ts";
import { bodyInput, common, pinnedShape, priceShape } from "./toolShapes.ts";

/**
 * Registers `quote`: the price of a call with this body (the 402 quote's metered terms, by response size) and the
 * cap, the most it can debit, pinned to the chain; signs and pays nothing.
 * @example registerQuote(createToolContext({ server, config, source, log }))
 */
export function registerQuote(tool: ToolContext): void {
  tool.server.registerTool(
    "quote",
    {
      title: "Price of a call",
      description: `Asks a resource what a call with this body would cost (its 402 quote), pinned against the chain. The price is metered on the response: base + perKB per KB of response, times the compute multiplier, never more than the cap. Answers that formula's terms, what responses of a few sizes (and of responseKB, when given) would cost, and the cap: the most the call can debit, which is what call_resource signs and what SPEND_MAX_PER_CALL, the budgets and SPEND_CONFIRM_ABOVE are checked against. Amounts are in base units and in USDC. A body the resource refuses answers invalid_body with the request schema's message. Signs nothing, pays nothing.${tool.scoped}`,
      inputSchema: z.strictObject({
        resourceId: tool.targetInput,
        body: bodyInput,
        responseKB: z.int().min(0).max(1_000_000).optional().describe("Also price a response of this many KB"),
      }),
      outputSchema: {
        ...common,
        callUrl: z.string(),
        pinned: pinnedShape.extend({ maxTimeoutSeconds: z.number() }),
        price: priceShape,
        quote: z.record(z.string(), z.unknown()),
        signed: z.literal(false),
      },
      annotations: { readOnlyHint: true, openWorldHint: true },
    },
    (input) =>
      tool.run(async (env) => {
        const id = tool.target(input.resourceId);
        const chain = tool.chainOf(env);
        const pinned = await readPinnedCard(chain, id);
        const { quote, terms } = await requestQuote({
          chain,
          callUrl: pinned.card.url,
          body: input.body ?? {},
          pinned,
        });
        const entry = quote.accepts.find((a) => a.scheme === SCHEME_ESCROW);
        if (!entry || entry.scheme !== SCHEME_ESCROW) throw new PinError("the quote has no service-escrow entry");
        return toolAnswer(env.mode, {
          callUrl: pinned.card.url,
          pinned: { ...tool.pinnedView(pinned), cap: terms.cap.toString(), maxTimeoutSeconds: terms.maxTimeoutSeconds },
          price: describePrice(entry.pricing, terms.cap, input.responseKB),
          quote,
          signed: false,
        });
      }),
  );
}
