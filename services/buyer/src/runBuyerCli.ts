import { startStdioServer } from "./mcp/startStdioServer.ts";
import { runPluginsCli } from "./plugins/cli.ts";

const USAGE = `usage: service-buyer [mcp]             start the buyer MCP server on stdio (the default)
       service-buyer generate [...]    generate plugins (same as service-plugins generate)
`;

/**
 * The `service-buyer` command: `mcp` (default) starts the stdio MCP server, `generate` delegates to the plugin
 * generator. Resolves to the exit code; the MCP server keeps the process alive until stdin closes.
 * @example process.exitCode = await runBuyerCli(process.argv.slice(2))
 */
export async function runBuyerCli(argv: string[]): Promise<number> {
  const [command = "mcp", ...rest] = argv;
  if (command === "mcp") {
    await startStdioServer(process.env);
    return 0;
  }
  if (command === "generate") return runPluginsCli(["generate", ...rest]);
  if (command === "--help" || command === "-h" || command === "help") {
    process.stdout.write(USAGE);
    return 0;
  }
  process.stderr.write(`unknown command "${command}"\n${USAGE}`);
  return 2;
}
