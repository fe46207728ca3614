import { join } from "node:path";
import { BASE_PLUGIN_NAME } from "./assignPluginNames.ts";
import type { Endpoint } from "./endpoint.ts";
import { type McpLaunch, mcpCommand } from "./mcpLaunch.ts";
import { endpointLabel, priceText, renderBaseSkill, renderEndpointSkill, reputationText } from "./renderSkill.ts";
import { pluginUserConfig } from "./userConfig.ts";

/** Name of the generated plugin marketplace (`/plugin install <plugin>@service-marketplace`). */
export const MARKETPLACE_NAME = "service-marketplace";

/** Name of the buyer MCP server inside every generated plugin. */
export const MCP_SERVER_NAME = "buyer";

/** The license of every generated plugin: the buyer package's own. */
export const PLUGIN_LICENSE = "MIT";

/** Marketplace category of the base plugin, and of an endpoint without a category of its own. */
export const DEFAULT_CATEGORY = "development";

/** Inputs of {@link renderPlugins}. */
export type RenderPluginsParameters = {
  /** Each endpoint with its final plugin name. */
  endpoints: readonly { name: string; endpoint: Endpoint }[];
  /** Whether to write the base plugin `service-buyer`. */
  base: boolean;
  /** The marketplace the base plugin searches (empty when only cards were given). */
  marketplaceUrl: string;
  launch: McpLaunch;
  /** Version of the buyer package; every generated plugin carries it. */
  version: string;
  /** Absolute output directory (a local launch is written relative to each plugin folder in it). */
  outDir: string;
};

const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;

/**
 * Renders the whole plugin marketplace as text: `.claude-plugin/marketplace.json` and, for each plugin,
 * `plugins/<name>/` with `.claude-plugin/plugin.json`, `.mcp.json`, `skills/<name>/SKILL.md` and `README.md`.
 * Pure: the same parameters give byte-identical files, with plugins in name order and no timestamps. No secret and
 * no money field the buyer signs (escrow, asset, cap) is written; the key is a sensitive user option.
 * @example const files = renderPlugins({ endpoints, base: true, marketplaceUrl, launch, version: "0.1.0", outDir })
 */
export function renderPlugins(parameters: RenderPluginsParameters): Map<string, string> {
  const files = new Map<string, string>();
  const entries: { name: string; description: string; category: string; keywords: string[] }[] = [];
  const plugin = (
    name: string,
    description: string,
    scope: string | undefined,
    category: string | undefined,
    skill: string,
    readme: string,
    hosts: string[],
    requestSchema?: Record<string, unknown>,
  ) => {
    const dir = `plugins/${name}`;
    const marketplaceUrl = scopeMarketplace(parameters, name);
    const config = pluginUserConfig({ marketplaceUrl, scoped: scope !== undefined });
    const keywords = ["x402", "paid-endpoint", "mcp", ...(category ? [category] : [])];
    files.set(
      `${dir}/.claude-plugin/plugin.json`,
      json({
        name,
        version: parameters.version,
        description,
        author: { name: "service-plugins" },
        license: PLUGIN_LICENSE,
        keywords,
        network: { hosts },
        userConfig: config.options,
      }),
    );
    const { command, args } = mcpCommand(parameters.launch, join(parameters.outDir, dir));
    const env = {
      ...config.env,
      ...(scope ? { SERVICE_RESOURCE_IDS: scope } : {}),
      ...(requestSchema ? { SERVICE_REQUEST_SCHEMA: JSON.stringify(requestSchema) } : {}),
    };
    files.set(`${dir}/.mcp.json`, json({ mcpServers: { [MCP_SERVER_NAME]: { type: "stdio", command, args, env } } }));
    files.set(`${dir}/skills/${name}/SKILL.md`, skill);
    files.set(`${dir}/README.md`, readme);
    entries.push({ name, description, category: category ?? DEFAULT_CATEGORY, keywords });
  };

  if (parameters.base) {
    plugin(
      BASE_PLUGIN_NAME,
      "Discover the marketplace's paid endpoints and pay for any of them per call from escrow. Demo mode by default: no configuration, nothing real paid.",
      undefined,
      undefined,
      renderBaseSkill(BASE_PLUGIN_NAME, parameters.marketplaceUrl),
      baseReadme(parameters.marketplaceUrl),
      hostsOf([parameters.marketplaceUrl], DEMO_HOSTS),
    );
  }
  for (const { name, endpoint } of [...parameters.endpoints].sort((a, b) => compare(a.name, b.name))) {
    const description = `Paid ${endpointLabel(endpoint)}, resource ${endpoint.resourceId}: ${priceText(endpoint)}; reputation ${reputationText(endpoint)}. Its buyer MCP server pays per call from escrow.`;
    plugin(
      name,
      description,
      endpoint.resourceId,
      endpoint.category,
      renderEndpointSkill(name, endpoint),
      endpointReadme(name, endpoint),
      hostsOf([endpoint.marketplaceUrl, endpoint.cardUrl], DEMO_HOSTS),
      endpoint.requestSchema,
    );
  }
  files.set(
    ".claude-plugin/marketplace.json",
    json({
      name: MARKETPLACE_NAME,
      owner: { name: "service-plugins" },
      metadata: {
        description: `Paid endpoints of the agent marketplace${parameters.marketplaceUrl ? ` at ${parameters.marketplaceUrl}` : ""}, one plugin each, and the service-buyer base plugin. Generated by service-plugins generate.`,
        version: parameters.version,
      },
      plugins: entries.map(({ name, description, category, keywords }) => ({
        name,
        source: `./plugins/${name}`,
        description,
        version: parameters.version,
        category,
        keywords,
      })),
    }),
  );
  return files;
}

function scopeMarketplace(parameters: RenderPluginsParameters, name: string): string {
  return parameters.endpoints.find((e) => e.name === name)?.endpoint.marketplaceUrl ?? parameters.marketplaceUrl;
}

/** Where the demo (no key, no RPC URL) listens: its whole system runs in the server process, on loopback. */
const DEMO_HOSTS = ["127.0.0.1"];

/** The hosts (`host:port`) of the URLs a plugin reaches, for `network.hosts`, in order and without repeats. */
function hostsOf(urls: readonly string[], extra: readonly string[]): string[] {
  const hosts = urls.flatMap((url) => {
    try {
      return url ? [new URL(url).host] : [];
    } catch {
      return [];
    }
  });
  return [...new Set([...hosts, ...extra])];
}

const installing = (name: string) => `## Install

In Claude Code, add the generated marketplace (the folder that holds \`.claude-plugin/marketplace.json\`, or the
\`owner/repo\` you publish it in) and install the plugin:

\`\`\`
/plugin marketplace add <marketplace folder or owner/repo>
/plugin install ${name}@${MARKETPLACE_NAME}
\`\`\`

The plugin reaches the marketplace and the endpoint's card (\`network.hosts\` in its plugin.json) and, once set, the
RPC URL and facilitator you configure.
`;

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

const configuring = (extraRow = "") => `## Configuration

Every option is optional and set with \`/plugin\` → manage → configure:

| option | meaning |
|---|---|
| buyer private key (sensitive, kept in secure storage) | the buyer account that pays from escrow; empty means demo mode |
| RPC URL, escrow address | the chain and the escrow contract you trust; the buyer re-pins every quote against them |
| marketplace URL | where endpoints and cards are read |
| spend limit per call, hourly and daily budgets | in stablecoin base units; a call that would pass one is refused |
| allowed creators | comma-separated creator addresses; empty means any |
${extraRow}
The generator never writes a key, an escrow, an asset or a cap into these files.
`;

function endpointReadme(name: string, endpoint: Endpoint): string {
  return `# ${name}

A Claude Code plugin for the paid ${endpointLabel(endpoint)}:
a skill that says when and how to use it, and the buyer MCP server scoped to it (\`SERVICE_RESOURCE_IDS\`), which
pays per call from escrow after re-pinning the payment terms against the chain. Names, descriptions and headings are
written from the endpoint's slug, category, resource id, price and reputation; its creator's own words appear only at
the end of the skill, quoted as data.

- Resource id: \`${endpoint.resourceId}\`
- Price: ${priceText(endpoint)}
- Reputation: ${reputationText(endpoint)}

${installing(name)}
${configuring()}`;
}

function baseReadme(marketplaceUrl: string): string {
  return `# ${BASE_PLUGIN_NAME}

A Claude Code plugin to discover the paid endpoints of the agent marketplace${marketplaceUrl ? ` at ${marketplaceUrl}` : ""} and pay
for any of them per call from escrow, through the buyer MCP server. With no configuration it runs in demo mode, so
the whole escrow loop can be tried without paying anything real.

${installing(BASE_PLUGIN_NAME)}
${configuring("| allowed resources | comma-separated resource ids the buyer may pay; empty means any |\n")}`;
}
