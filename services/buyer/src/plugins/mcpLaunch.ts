import { posix, relative, sep } from "node:path";

/**
 * How a generated `.mcp.json` starts the buyer MCP server: from this workspace's build (`local`, the absolute path
 * of the built entry, written relative to `${CLAUDE_PLUGIN_ROOT}`) or through `npx` from the published package at an
 * exact version (`published`, with the registry when it is not npm's default).
 */
export type McpLaunch =
  | { kind: "local"; entry: string }
  | { kind: "published"; packageName: string; version: string; registry: string | undefined };

/** npm's default registry; a launch through it names no registry. */
export const DEFAULT_NPM_REGISTRY = "https://registry.npmjs.org/";

/**
 * The `command` and `args` of the buyer MCP server in the plugin at `pluginDir`.
 * @example mcpCommand({ kind: "published", packageName: "service-buyer", version: "0.1.0", registry: undefined }, dir)
 * // { command: "npx", args: ["-y", "service-buyer@0.1.0", "mcp"] }
 */
export function mcpCommand(launch: McpLaunch, pluginDir: string): { command: string; args: string[] } {
  if (launch.kind === "local") {
    const path = relative(pluginDir, launch.entry).split(sep).join(posix.sep);
    return { command: "node", args: [`\${CLAUDE_PLUGIN_ROOT}/${path}`] };
  }
  const registry = launch.registry ? [`--registry=${launch.registry}`] : [];
  return { command: "npx", args: ["-y", ...registry, `${launch.packageName}@${launch.version}`, "mcp"] };
}
