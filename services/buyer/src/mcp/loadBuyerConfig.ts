import { homedir } from "node:os";
import { join } from "node:path";
import type { Address, Hex, LocalAccount } from "viem";
import { getAddress, isAddress } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { readKeySettings } from "../../../keys/readKeySettings.ts";
import { MAX_AUTHORIZATION_SECONDS } from "../../../protocol/constants.ts";
import { DEMO_PORT } from "../demo/demoPort.ts";
import type { SpendPolicy } from "./spendPolicy.ts";

/** The buyer MCP server's settings, read once from the environment at launch. */
export type BuyerConfig = {
  /** `demo` when neither a key nor an RPC URL is configured: everything runs in-process. */
  mode: "demo" | "live";
  rpcUrl?: string;
  escrow?: Address;
  marketplaceUrl?: string;
  facilitatorUrl?: string;
  /** The buyer's account; its key is never logged, returned or written. */
  account?: LocalAccount;
  /**
   * Whether the addresses creators name (card URIs, call URLs) may be loopback or private
   * (`BUYER_ALLOW_PRIVATE_NETWORK`): a local development stack only; off, they must resolve to public addresses.
   */
  allowPrivateNetwork: boolean;
  /** Resource ids every tool is limited to; undefined = all. */
  scope?: Hex[];
  /** Resource ids given a typed tool from the start in an unscoped server (`SERVICE_TOOL_RESOURCE_IDS`). */
  toolResources?: Hex[];
  policy: SpendPolicy;
  /**
   * The longest a payment's authorization may stay valid, seconds (`SPEND_MAX_AUTHORIZATION_SECONDS`, at most and by
   * default MAX_AUTHORIZATION_SECONDS): a quote asking for a longer window is signed for this long.
   */
  maxAuthorizationSeconds?: number;
  /** The folder of the spend ledgers (one file per buyer key, escrow and chain). */
  dataDir: string;
  /** Demo mode: the loopback port of the demo's resource, so every start serves the same card (`SERVICE_DEMO_PORT`). */
  demoPort: number;
  /** Settings that are missing or malformed, by name: the tools that need one answer an error naming it. */
  problems: Partial<Record<Setting, string>>;
};

/** Every environment variable the server reads. */
export type Setting =
  | "BUYER_PRIVATE_KEY"
  | "RPC_URL"
  | "ESCROW_ADDRESS"
  | "MARKETPLACE_URL"
  | "FACILITATOR_URL"
  | "BUYER_ALLOW_PRIVATE_NETWORK"
  | "SERVICE_RESOURCE_IDS"
  | "SERVICE_TOOL_RESOURCE_IDS"
  | "SPEND_MAX_PER_CALL"
  | "SPEND_CONFIRM_ABOVE"
  | "SPEND_HOURLY_BUDGET"
  | "SPEND_DAILY_BUDGET"
  | "SPEND_ALLOW_RESOURCES"
  | "SPEND_ALLOW_CREATORS"
  | "SPEND_MAX_AUTHORIZATION_SECONDS"
  | "SERVICE_BUYER_DATA_DIR"
  | "SERVICE_DEMO_PORT";

const BYTES32 = /^0x[0-9a-fA-F]{64}$/;

/** What a launcher may pass for an option left blank: nothing, blanks, or a pair of empty quotes (`""`, `''`). */
const BLANK = /^\s*(""|'')?\s*$/;

/**
 * A setting's value with the blanks around it trimmed, or undefined when it is blank: an empty optional setting is
 * unset, whatever the launcher passed for it (nothing, spaces, or a pair of empty quotes).
 * @example settingValue('""') // undefined
 */
export function settingValue(value: string | undefined): string | undefined {
  return value === undefined || BLANK.test(value) ? undefined : value.trim();
}
const DIGITS = /^[0-9]{1,78}$/;
const FLAG_ON = ["1", "true", "on"];
const FLAG_OFF = ["0", "false", "off"];

function list(value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  const items = value
    .split(",")
    .map((item) => item.trim())
    .filter((item) => item !== "");
  return items.length ? items : undefined;
}

function httpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === "http:" || url.protocol === "https:";
  } catch {
    return false;
  }
}

/**
 * The user's data directory for the spend ledgers, shared by every server this user runs with a key:
 * `$XDG_DATA_HOME/service-buyer`, else `$HOME/.local/share/service-buyer` (`%LOCALAPPDATA%\service-buyer` on Windows).
 * @example defaultDataDir(process.env)
 */
export function defaultDataDir(env: Record<string, string | undefined>): string {
  if (env.XDG_DATA_HOME) return join(env.XDG_DATA_HOME, "service-buyer");
  if (process.platform === "win32" && env.LOCALAPPDATA) return join(env.LOCALAPPDATA, "service-buyer");
  return join(env.HOME ?? homedir(), ".local", "share", "service-buyer");
}

/**
 * Reads the settings from the environment. An empty value means unset (what a plugin passes for an optional user
 * setting left blank: nothing, blanks or `""`, see {@link settingValue}). Nothing here throws: a malformed setting is recorded in `problems` and the tools that need
 * it refuse with its name, fail-closed (a malformed budget refuses every payment, never lifts the limit).
 * @example const config = loadBuyerConfig(process.env)
 */
export function loadBuyerConfig(rawEnv: Record<string, string | undefined>): BuyerConfig {
  const given: Record<string, string | undefined> = {};
  for (const [key, value] of Object.entries(rawEnv)) given[key] = settingValue(value);
  const problems: BuyerConfig["problems"] = {};
  const mode =
    given.BUYER_PRIVATE_KEY === undefined && given.BUYER_PRIVATE_KEY_FILE === undefined && given.RPC_URL === undefined
      ? "demo"
      : "live";
  const keys = readKeySettings(given, { BUYER_PRIVATE_KEY: "one" });
  const env = keys.env;

  let account: LocalAccount | undefined;
  if (keys.problems.BUYER_PRIVATE_KEY) {
    problems.BUYER_PRIVATE_KEY = keys.problems.BUYER_PRIVATE_KEY;
  } else if (env.BUYER_PRIVATE_KEY === undefined) {
    if (mode === "live") problems.BUYER_PRIVATE_KEY = "BUYER_PRIVATE_KEY is not set: paying needs the buyer's key";
  } else if (!BYTES32.test(env.BUYER_PRIVATE_KEY)) {
    problems.BUYER_PRIVATE_KEY = "BUYER_PRIVATE_KEY is malformed: it must be 0x followed by 64 hex digits";
  } else {
    try {
      account = privateKeyToAccount(env.BUYER_PRIVATE_KEY as Hex);
    } catch {
      problems.BUYER_PRIVATE_KEY = "BUYER_PRIVATE_KEY is not a valid secp256k1 private key";
    }
  }

  const url = (name: "RPC_URL" | "MARKETPLACE_URL" | "FACILITATOR_URL", required: boolean) => {
    const value = env[name];
    if (value === undefined) {
      if (required && mode === "live") problems[name] = `${name} is not set`;
      return undefined;
    }
    if (!httpUrl(value)) {
      problems[name] = `${name} is not an http(s) URL`;
      return undefined;
    }
    return value.replace(/\/+$/, "");
  };
  const rpcUrl = url("RPC_URL", true);
  const marketplaceUrl = url("MARKETPLACE_URL", true);
  const facilitatorUrl = url("FACILITATOR_URL", false);

  let allowPrivateNetwork = false;
  const allow = env.BUYER_ALLOW_PRIVATE_NETWORK?.toLowerCase();
  if (allow !== undefined) {
    if (FLAG_ON.includes(allow)) allowPrivateNetwork = true;
    else if (!FLAG_OFF.includes(allow))
      problems.BUYER_ALLOW_PRIVATE_NETWORK =
        "BUYER_ALLOW_PRIVATE_NETWORK must be on or off (1/0, true/false): private addresses stay refused";
  }

  let escrow: Address | undefined;
  if (env.ESCROW_ADDRESS === undefined) {
    if (mode === "live") problems.ESCROW_ADDRESS = "ESCROW_ADDRESS is not set: the trusted escrow the buyer pays into";
  } else if (!isAddress(env.ESCROW_ADDRESS, { strict: false })) {
    problems.ESCROW_ADDRESS = "ESCROW_ADDRESS is not an address";
  } else escrow = getAddress(env.ESCROW_ADDRESS);

  const ids = (name: "SERVICE_RESOURCE_IDS" | "SERVICE_TOOL_RESOURCE_IDS" | "SPEND_ALLOW_RESOURCES") => {
    const items = list(env[name]);
    if (items?.some((item) => !BYTES32.test(item))) {
      problems[name] = `${name} must be comma-separated resource ids (0x + 64 hex digits)`;
      return [];
    }
    return items?.map((item) => item.toLowerCase() as Hex);
  };
  const scope = ids("SERVICE_RESOURCE_IDS");
  const toolResources = ids("SERVICE_TOOL_RESOURCE_IDS");
  const allowResources = ids("SPEND_ALLOW_RESOURCES");
  const creators = list(env.SPEND_ALLOW_CREATORS);
  let allowCreators: Address[] | undefined;
  if (creators?.some((item) => !isAddress(item, { strict: false }))) {
    problems.SPEND_ALLOW_CREATORS = "SPEND_ALLOW_CREATORS must be comma-separated addresses";
    allowCreators = [];
  } else allowCreators = creators?.map((item) => getAddress(item));

  const amount = (
    name: "SPEND_MAX_PER_CALL" | "SPEND_CONFIRM_ABOVE" | "SPEND_HOURLY_BUDGET" | "SPEND_DAILY_BUDGET",
  ) => {
    const value = env[name];
    if (value === undefined) return undefined;
    if (!DIGITS.test(value)) {
      problems[name] = `${name} must be an amount in base units (digits only, e.g. 50000 for 0.05 USDC)`;
      return 0n;
    }
    return BigInt(value);
  };
  const policy: SpendPolicy = {
    maxPerCall: amount("SPEND_MAX_PER_CALL"),
    confirmAbove: amount("SPEND_CONFIRM_ABOVE"),
    hourlyBudget: amount("SPEND_HOURLY_BUDGET"),
    dailyBudget: amount("SPEND_DAILY_BUDGET"),
    allowResources,
    allowCreators,
  };
  let maxAuthorizationSeconds: number | undefined;
  const window = env.SPEND_MAX_AUTHORIZATION_SECONDS;
  if (window !== undefined) {
    maxAuthorizationSeconds = Number(window);
    if (
      !/^[0-9]{1,5}$/.test(window) ||
      maxAuthorizationSeconds < 1 ||
      maxAuthorizationSeconds > MAX_AUTHORIZATION_SECONDS
    ) {
      problems.SPEND_MAX_AUTHORIZATION_SECONDS = `SPEND_MAX_AUTHORIZATION_SECONDS must be a whole number of seconds from 1 to ${MAX_AUTHORIZATION_SECONDS}`;
      maxAuthorizationSeconds = undefined;
    }
  }
  const dataDir = env.SERVICE_BUYER_DATA_DIR ?? defaultDataDir(env);
  let demoPort = DEMO_PORT;
  if (env.SERVICE_DEMO_PORT !== undefined) {
    demoPort = Number(env.SERVICE_DEMO_PORT);
    if (!/^[0-9]{1,5}$/.test(env.SERVICE_DEMO_PORT) || demoPort < 1 || demoPort > 65_535) {
      problems.SERVICE_DEMO_PORT = "SERVICE_DEMO_PORT must be a TCP port (1 to 65535)";
      demoPort = DEMO_PORT;
    }
  }
  return {
    mode,
    rpcUrl,
    escrow,
    marketplaceUrl,
    facilitatorUrl,
    allowPrivateNetwork,
    account,
    scope,
    toolResources,
    policy,
    ...(maxAuthorizationSeconds === undefined ? {} : { maxAuthorizationSeconds }),
    dataDir,
    demoPort,
    problems,
  };
}
