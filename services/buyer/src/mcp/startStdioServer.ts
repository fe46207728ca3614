import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";

/**
 * Starts the buyer MCP server on stdio (stdout carries the protocol; logs go to stderr).
 * @example await startStdioServer(process.env)
 */
export async function startStdioServer(_env: Record<string, string | undefined>): Promise<void> {
  const server = new McpServer({ name: "service-buyer", version: "0.1.0" });
  await server.connect(new StdioServerTransport());
}
