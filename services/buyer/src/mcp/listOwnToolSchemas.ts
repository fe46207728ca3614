import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { ListToolsResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import { ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

/** The JSON Schemas a tool is listed with when they are not the ones McpServer derives from its zod schemas. */
export type OwnToolSchemas = { inputSchema: Tool["inputSchema"]; outputSchema?: Tool["outputSchema"] };

/**
 * Lets `tools/list` carry JSON Schemas of the server's own for some tools: a resource's tool is listed with the
 * resource's request and response schemas as published (McpServer lists only what it derives from zod, and the tool
 * validates with ajv itself), and `beforeList` runs first (the resource tools' check of the chain). Every other field
 * and tool is listed as McpServer lists it. Install before the first `registerTool`: it wraps the `tools/list`
 * handler McpServer installs then, through the server's public `setRequestHandler`.
 * @example listOwnToolSchemas(server, { beforeList: () => tools.beforeList(), schemasOf: (name) => tools.schemasOf(name) })
 */
export function listOwnToolSchemas(
  server: McpServer,
  p: { beforeList(): Promise<void>; schemasOf(name: string): OwnToolSchemas | undefined },
): void {
  const low = server.server;
  const setRequestHandler = low.setRequestHandler.bind(low);
  low.setRequestHandler = ((schema: unknown, handler: (request: unknown, extra: unknown) => unknown) => {
    if (schema !== ListToolsRequestSchema) return setRequestHandler(schema as never, handler as never);
    return setRequestHandler(ListToolsRequestSchema, async (request, extra) => {
      await p.beforeList();
      const listed = (await handler(request, extra)) as ListToolsResult;
      return {
        ...listed,
        tools: listed.tools.map((tool) => {
          const own = p.schemasOf(tool.name);
          if (!own) return tool;
          const { outputSchema: _, ...rest } = tool;
          return { ...rest, ...own };
        }),
      };
    });
  }) as typeof low.setRequestHandler;
}
