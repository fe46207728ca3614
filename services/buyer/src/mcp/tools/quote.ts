import { z } from "zod";
import { readPinnedCard } from "../../sdk/readPinnedCard.ts";
import { requestQuote } from "../../sdk/requestQuote.ts";
import { toolAnswer } from "../toolResult.ts";
import type { ToolContext } from "./toolContext.ts";
import { bodyInput, common, pinnedShape } from "./toolShapes.ts";

/**
 * Registers `quote`: what a call with a body would cost (the 402 quote, pinned to the chain); signs and pays nothing.
 * @example registerQuote(createToolContext({ server, config, source, log }))
 */
export function registerQuote(tool: ToolContext): void {
  tool.server.registerTool(
    "quote",
    {
      title: "Quote a call",
      description: `Asks a resource what a call with this body would cost (its 402 quote) and pins the terms against the chain. Signs nothing, pays nothing.${tool.scoped}`,
      inputSchema: { resourceId: tool.targetInput, body: bodyInput },
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
        return toolAnswer(env.mode, {
          callUrl: pinned.card.url,
          pinned: { ...tool.pinnedView(pinned), cap: terms.cap.toString(), maxTimeoutSeconds: terms.maxTimeoutSeconds },
          quote,
          signed: false,
        });
      }),
  );
}
