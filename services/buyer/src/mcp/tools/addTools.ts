import type { Hex } from "viem";
import { z } from "zod";
import type { ResourceTools } from "../resourceTools.ts";
import { MAX_AGENT_TOOLS } from "../resourceTools.ts";
import { toolAnswer } from "../toolResult.ts";
import type { ToolContext } from "./toolContext.ts";
import { common, resourceIdInput } from "./toolShapes.ts";

/**
 * Registers `add_tools` (unscoped servers): gives resources found by search a typed tool each (`resourceTools`),
 * announced with `notifications/tools/list_changed`.
 * @example registerAddTools(context, createResourceTools(context))
 */
export function registerAddTools(tool: ToolContext, resources: ResourceTools): void {
  tool.server.registerTool(
    "add_tools",
    {
      title: "Add endpoints as tools of their own",
      description: `Gives each resource (ids from search_resources) a tool of its own, named after its slug: its input is the resource's request schema and its output the resource's response schema, both published in its 402 quote and read the way its payment terms are (pinned to its card and the chain). Calling that tool pays for one call exactly as call_resource does (the same spend policy and confirmation) and answers the resource's response. The server announces the new tools (notifications/tools/list_changed): list the tools again to see them. A tool is removed when its resource goes inactive or leaves the marketplace index; a new card version updates its schemas. Signs and pays nothing itself. At most ${MAX_AGENT_TOOLS} resources.${tool.scoped}`,
      inputSchema: z.strictObject({
        resourceIds: z
          .array(resourceIdInput)
          .min(1)
          .max(MAX_AGENT_TOOLS)
          .describe("Resource ids from search_resources"),
      }),
      outputSchema: {
        ...common,
        added: z.array(z.object({ resourceId: z.string(), tool: z.string() })),
        refused: z.array(
          z.object({ resourceId: z.string(), error: z.object({ code: z.string(), message: z.string() }) }),
        ),
      },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
    },
    (input) =>
      tool.run(async (env) => {
        const ids = [...new Set(input.resourceIds.map((id) => tool.target(id)))] as Hex[];
        const outcomes = await resources.add(ids, "agent");
        return toolAnswer(env.mode, {
          added: outcomes.flatMap((o) => (o.tool !== undefined ? [{ resourceId: o.resourceId, tool: o.tool }] : [])),
          refused: outcomes.flatMap((o) => (o.error ? [{ resourceId: o.resourceId, error: o.error }] : [])),
        });
      }),
  );
}
