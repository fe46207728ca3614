/**
 * The settings of the buyer MCP server as `service-buyer-mcp --help` prints them: every environment variable it reads,
 * what it means and what happens when it is unset (an empty value is unset).
 */
export const SETTINGS_HELP = `settings (environment variables, read once at launch; an empty value is unset):
  BUYER_PRIVATE_KEY       the buyer's key, 0x + 64 hex (never logged or shown). Unset with RPC_URL unset: demo mode
  BUYER_PRIVATE_KEY_FILE  instead of BUYER_PRIVATE_KEY: an encrypted keystore (Web3 Secret Storage v3, as geth and
                          Foundry write), opened with the password in the file BUYER_PRIVATE_KEY_PASSWORD_FILE
  RPC_URL                 JSON-RPC of chain 5042002 (live mode)
  ESCROW_ADDRESS          the PaymentEscrow you trust; every quote is pinned against it (live mode)
  MARKETPLACE_URL         the marketplace, for search_resources (live mode)
  FACILITATOR_URL         where recover_result finds a lost answer. Unset: the outcome from the chain only
  BUYER_ALLOW_PRIVATE_NETWORK  on: cards and resources may be on loopback or private addresses (a local
                          development stack only). Unset: public addresses only
  SERVICE_RESOURCE_IDS    comma-separated resource ids every tool is limited to. Unset: all
  SERVICE_TOOL_RESOURCE_IDS  comma-separated resource ids given a typed tool of their own from the start (a scoped
                          server has one for each resource in scope). Unset: none until add_tools
  SPEND_MAX_PER_CALL      the most one call may be signed for, base units (1000000 = 1 USDC). Unset: no limit
  SPEND_CONFIRM_ABOVE     above it (base units), a call's cap, a deposit or a withdrawal request, and any loosening
                          of the on-chain spend limit, need the user's yes (MCP elicitation). Unset: never asks
  SPEND_HOURLY_BUDGET     rolling 1 h budget, base units. Unset: no limit
  SPEND_DAILY_BUDGET      rolling 24 h budget, base units. Unset: no limit
  SPEND_ALLOW_RESOURCES   comma-separated resource ids payments may go to. Unset: any
  SPEND_ALLOW_CREATORS    comma-separated creator addresses payments may go to. Unset: any
  SPEND_MAX_AUTHORIZATION_SECONDS  the longest a payment's authorization may stay valid (1 to 3600 s); a quote
                          asking longer is signed for this long. Unset: what the quote asks, at most 3570
  SERVICE_BUYER_DATA_DIR  the spend ledgers' folder. Unset: $XDG_DATA_HOME/service-buyer, else ~/.local/share/service-buyer
  SERVICE_DEMO_PORT       demo mode: the loopback port of the demo's echo resource. Unset: 4402 (a free one when taken)
`;
