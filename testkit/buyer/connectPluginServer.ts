import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

type McpServerEntry = { type?: string; command: string; args?: string[]; env?: Record<string, string> };
type UserConfig = Record<string, { default?: string }>;

/**
 * Substitutes a generated plugin's `.mcp.json` as Claude Code does at launch: `${CLAUDE_PLUGIN_ROOT}` and
 * `${CLAUDE_PLUGIN_DATA}` become folders, `${user_config.KEY}` the value the user set or else the option's default,
 * and an option with neither is refused as Claude Code refuses it.
 * @example const { command, args, env } = substituteMcpServer(pluginDir, dataDir, { buyer_private_key: key })
 */
export function substituteMcpServer(pluginDir: string, dataDir: string, values: Record<string, string>) {
  const servers = JSON.parse(readFileSync(join(pluginDir, ".mcp.json"), "utf8")).mcpServers as Record<
    string,
    McpServerEntry
  >;
  const options = JSON.parse(readFileSync(join(pluginDir, ".claude-plugin/plugin.json"), "utf8"))
    .userConfig as UserConfig;
  const [entry] = Object.entries(servers);
  if (!entry) throw new Error(`${pluginDir}/.mcp.json has no server`);
  const [name, server] = entry;
  const substitute = (text: string) =>
    text
      .replaceAll(`\${CLAUDE_PLUGIN_ROOT}`, pluginDir)
      .replaceAll(`\${CLAUDE_PLUGIN_DATA}`, dataDir)
      .replace(/\$\{user_config\.([^}]+)\}/g, (_, key: string) => {
        const value = values[key] ?? options[key]?.default;
        if (value === undefined) throw new Error(`Plugin option "${key}" isn't set`);
        return value;
      });
  return {
    name,
    type: server.type ?? "stdio",
    command: substitute(server.command),
    args: (server.args ?? []).map(substitute),
    env: Object.fromEntries(Object.entries(server.env ?? {}).map(([k, v]) => [k, substitute(v)])),
  };
}

/**
 * Launches a generated plugin's MCP server from its `.mcp.json` over stdio, as an MCP client does, and connects the
 * official client to it. `extraEnv` is the launching process's own environment on top of the SDK's default one
 * (Claude Code passes its environment through in the same way), e.g. `PATH` or `npm_config_registry`.
 * @example const { client, close } = await connectPluginServer(pluginDir, dataDir, { rpc_url }); await close()
 */
export async function connectPluginServer(
  pluginDir: string,
  dataDir: string,
  values: Record<string, string> = {},
  extraEnv: Record<string, string> = {},
) {
  const server = substituteMcpServer(pluginDir, dataDir, values);
  let stderr = "";
  const transport = new StdioClientTransport({
    command: server.command,
    args: server.args,
    env: { ...getDefaultEnvironment(), ...extraEnv, ...server.env },
    stderr: "pipe",
  });
  transport.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const client = new Client({ name: "plugin-test", version: "0.0.0" });
  await client.connect(transport);
  return { client, server, stderr: () => stderr, close: () => client.close() };
}
