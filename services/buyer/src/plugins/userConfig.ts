/** One option of a plugin's `userConfig`, as Claude Code's plugin.json schema takes it. */
export type UserConfigOption = {
  type: "string";
  title: string;
  description: string;
  sensitive?: true;
  required: false;
  default: string;
};

const optional = (title: string, description: string, value = ""): UserConfigOption => ({
  type: "string",
  title,
  description,
  required: false,
  default: value,
});

/**
 * The `userConfig` of a generated plugin, keyed by option name, with the environment variable of the buyer MCP each
 * option feeds. Every option has a default (empty means unset), because Claude Code refuses to start an MCP server
 * whose `${user_config.…}` names an option without a value. The buyer key is the one sensitive option: Claude Code
 * keeps it in secure storage and never writes it into a file.
 * @example pluginUserConfig({ marketplaceUrl: "http://127.0.0.1:4000", scoped: true })
 */
export function pluginUserConfig(parameters: { marketplaceUrl: string; scoped: boolean }): {
  options: Record<string, UserConfigOption>;
  env: Record<string, string>;
} {
  const entries: [string, string, UserConfigOption][] = [
    [
      "buyer_private_key",
      "BUYER_PRIVATE_KEY",
      {
        ...optional(
          "Buyer private key",
          "Hex private key of the buyer account that pays from escrow. Leave empty for demo mode (a local chain, nothing real is paid).",
        ),
        sensitive: true,
      },
    ],
    [
      "rpc_url",
      "RPC_URL",
      optional(
        "RPC URL",
        "JSON-RPC endpoint of the chain the escrow lives on (chain id 5042002). Needed with the key.",
      ),
    ],
    [
      "escrow_address",
      "ESCROW_ADDRESS",
      optional(
        "Escrow address",
        "The PaymentEscrow address you trust; every quote is re-pinned against it before signing.",
      ),
    ],
    [
      "marketplace_url",
      "MARKETPLACE_URL",
      optional("Marketplace URL", "Where endpoints and their agent cards are read.", parameters.marketplaceUrl),
    ],
    [
      "facilitator_url",
      "FACILITATOR_URL",
      optional(
        "Facilitator URL",
        "Where paid results are kept for 24 hours, for recover_result. Empty: recovery is off.",
      ),
    ],
    [
      "spend_max_per_call",
      "SPEND_MAX_PER_CALL",
      optional(
        "Spend limit per call",
        "Most the buyer signs for one call, in stablecoin base units. Empty: no limit of its own.",
      ),
    ],
    [
      "spend_hourly_budget",
      "SPEND_HOURLY_BUDGET",
      optional("Hourly budget", "Most the buyer spends in any hour, in stablecoin base units. Empty: no limit."),
    ],
    [
      "spend_daily_budget",
      "SPEND_DAILY_BUDGET",
      optional("Daily budget", "Most the buyer spends in any day, in stablecoin base units. Empty: no limit."),
    ],
    [
      "spend_max_authorization_seconds",
      "SPEND_MAX_AUTHORIZATION_SECONDS",
      optional(
        "Longest authorization",
        "Longest a signed payment stays valid, in seconds (1 to 3600). A longer one lets the marketplace batch its debit with others so calls stay cheap; the funds are reserved only for the call itself. Empty: up to an hour, as the endpoint asks.",
      ),
    ],
    [
      "spend_allow_creators",
      "SPEND_ALLOW_CREATORS",
      optional("Allowed creators", "Comma-separated creator addresses the buyer may pay. Empty: any creator."),
    ],
  ];
  if (!parameters.scoped)
    entries.push([
      "spend_allow_resources",
      "SPEND_ALLOW_RESOURCES",
      optional("Allowed resources", "Comma-separated resource ids the buyer may pay. Empty: any resource."),
    ]);
  return {
    options: Object.fromEntries(entries.map(([key, , option]) => [key, option])),
    env: Object.fromEntries(entries.map(([key, name]) => [name, `\${user_config.${key}}`])),
  };
}
