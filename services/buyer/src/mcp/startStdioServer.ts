import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import type { EnvironmentSource } from "./buyerEnvironment.ts";
import { liveEnvironment } from "./buyerEnvironment.ts";
import { createBuyerServer } from "./createBuyerServer.ts";
import { demoEnvironment } from "./demoEnvironment.ts";
import { loadBuyerConfig } from "./loadBuyerConfig.ts";

/**
 * Starts the buyer MCP server on stdio (stdout carries the protocol; logs go to stderr) and resolves once the
 * client has closed the connection and everything it started (the demo's in-process system) has stopped.
 * @example await startStdioServer(process.env)
 */
export async function startStdioServer(env: Record<string, string | undefined>): Promise<void> {
  const config = loadBuyerConfig(env);
  const source: EnvironmentSource = config.mode === "demo" ? demoEnvironment(config) : liveEnvironment(config);
  const server = createBuyerServer(config, source);
  const address = config.account ? `, buyer ${config.account.address}` : "";
  const problems = Object.values(config.problems);
  process.stderr.write(
    `service-buyer: ${config.mode} mode${address}${config.scope ? `, scope ${config.scope.join(",")}` : ""}${problems.length ? `; settings to fix: ${problems.join("; ")}` : ""}\n`,
  );
  const closed = new Promise<void>((resolve) => {
    server.server.onclose = () => resolve();
  });
  const stop = async () => {
    await server.close().catch(() => {});
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  process.stdin.once("end", stop);
  await server.connect(new StdioServerTransport());
  await closed;
  await source.close();
}
