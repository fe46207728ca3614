import { SETTINGS_HELP } from "./mcp/settingsHelp.ts";
import { startStdioServer } from "./mcp/startStdioServer.ts";
import { buyerPackage } from "./plugins/buyerPackage.ts";
import { runPluginsCli } from "./plugins/cli.ts";

const USAGE = `usage: service-buyer [mcp]             start the buyer MCP server on stdio (the default; an MCP client launches it)
       service-buyer generate [...]    generate plugins (same as service-plugins generate)
       service-buyer --version         print the version
       service-buyer-mcp [--help | --version]

${SETTINGS_HELP}`;

const isHelp = (arg: string | undefined) => arg === "--help" || arg === "-h" || arg === "help";
const isVersion = (arg: string | undefined) => arg === "--version" || arg === "-v";

/**
 * The `service-buyer` command: `mcp` (default) starts the stdio MCP server, `generate` delegates to the plugin
 * generator, `--help` prints the usage and the settings, `--version` the package version; each of those prints and
 * exits. Resolves to the exit code; the MCP server keeps the process alive until stdin closes.
 * @example process.exitCode = await runBuyerCli(process.argv.slice(2))
 */
export async function runBuyerCli(argv: string[]): Promise<number> {
  const [command = "mcp", ...rest] = argv;
  if (command === "generate") return runPluginsCli(["generate", ...rest]);
  const args = command === "mcp" ? rest : argv;
  if (args.some(isVersion)) {
    process.stdout.write(`${buyerPackage().version}\n`);
    return 0;
  }
  if (args.some(isHelp)) {
    process.stdout.write(USAGE);
    return 0;
  }
  if (args.length > 0) {
    process.stderr.write(`unknown argument "${args[0]}"\n${USAGE}`);
    return 2;
  }
  await startStdioServer(process.env);
  return 0;
}
