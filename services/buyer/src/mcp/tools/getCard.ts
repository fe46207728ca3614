import { z } from "zod";
import { readPinnedCard } from "../../sdk/readPinnedCard.ts";
import { toolAnswer } from "../toolResult.ts";
import type { ToolContext } from "./toolContext.ts";
import { common, pinnedShape } from "./toolShapes.ts";

/**
 * Registers `get_card`: a resource's card from the URI registered on chain, with its money fields pinned to the chain.
 * @example registerGetCard(createToolContext({ server, config, source, log }))
 */
export function registerGetCard(tool: ToolContext): void {
  tool.server.registerTool(
    "get_card",
    {
      title: "Read an endpoint's card",
      description: `Reads a resource's agent card from the URI registered on chain, checked against the strict schema, with its money fields (escrow, asset, payTo, cap) pinned to the chain.${tool.scoped}`,
      inputSchema: z.strictObject({ resourceId: tool.targetInput }),
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
      tool.run(async (env) => {
        const id = tool.target(input.resourceId);
        const pinned = await readPinnedCard(tool.chainOf(env), id);
        return toolAnswer(env.mode, {
          pinned: tool.pinnedView(pinned),
          active: pinned.active,
          cardUrl: pinned.cardUri,
          card: pinned.card,
        });
      }),
  );
}
