import { parseArgs } from "node:util";
import { BaseError } from "../../../protocol/errors.ts";
import { PluginsUsageError } from "./errors.ts";
import { generatePlugins } from "./generatePlugins.ts";

/** Usage of `service-plugins`. */
export const PLUGINS_USAGE = `usage: service-plugins generate [--marketplace-url <url>] [--card <url>]... --out <dir>
                                [--local | --published] [--prune] [--no-base] [--no-enrich] [--json]

  --marketplace-url <url>  read the live GET /resources index (every page)
  --card <url>             read one endpoint's agent card; repeatable; combinable with the index
  --out <dir>              where to write the plugin marketplace
  --local                  launch the buyer MCP from this workspace's build (node \${CLAUDE_PLUGIN_ROOT}/…)
  --published              launch it with npx from the published buyer package at this exact version (the
                           default); refused unless that version is on the configured npm registry
  --prune                  remove plugins/ before writing, so stale plugins are dropped
  --no-base                omit the base plugin service-buyer
  --no-enrich              do not read the endpoints' agent cards (by default each card is read: its plain
                           keyword tags go into the skill's description, its words, sanitised, quoted in its body)
  --json                   print a summary as JSON on stdout (progress always goes to stderr)
`;

/** Streams {@link runPluginsCli} writes to; the process's by default. */
export type PluginsCliIo = { stdout: (text: string) => void; stderr: (text: string) => void };

const processIo: PluginsCliIo = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
};

/**
 * `service-plugins` (and `service-buyer generate`): parses the arguments after the bin name, generates, and resolves
 * to the exit code: 0 done, 1 failed (nothing written), 2 bad usage. Progress and warnings go to stderr, the `--json`
 * summary to stdout.
 * @example process.exitCode = await runPluginsCli(["generate", "--marketplace-url", url, "--out", "out", "--local"])
 */
export async function runPluginsCli(argv: string[], io: PluginsCliIo = processIo): Promise<number> {
  const [command, ...rest] = argv;
  if (command === "--help" || command === "-h" || command === "help") {
    io.stdout(PLUGINS_USAGE);
    return 0;
  }
  if (command !== "generate") {
    io.stderr(`${command ? `unknown command "${command}"` : "missing command"}\n${PLUGINS_USAGE}`);
    return 2;
  }
  try {
    const flags = parseFlags(rest);
    if (flags.help) {
      io.stdout(PLUGINS_USAGE);
      return 0;
    }
    const summary = await generatePlugins({ ...flags, log: (line) => io.stderr(`${line}\n`) });
    if (flags.json) io.stdout(`${JSON.stringify(summary, null, 2)}\n`);
    return 0;
  } catch (error) {
    if (error instanceof PluginsUsageError) {
      io.stderr(`error: ${error.message}\n${PLUGINS_USAGE}`);
      return 2;
    }
    io.stderr(`error: ${error instanceof BaseError ? error.message : String(error)}\n`);
    return 1;
  }
}

function parseFlags(args: string[]) {
  let values: ReturnType<typeof parse>["values"];
  try {
    values = parse(args).values;
  } catch (error) {
    throw new PluginsUsageError(error instanceof Error ? error.message : String(error));
  }
  if (values.enrich && values["no-enrich"]) throw new PluginsUsageError("--enrich and --no-enrich exclude each other.");
  if (values.local && values.published) throw new PluginsUsageError("--local and --published exclude each other.");
  if (!values.help && !values.out) throw new PluginsUsageError("--out <dir> is required.");
  return {
    marketplaceUrl: values["marketplace-url"],
    cards: values.card ?? [],
    out: values.out ?? "",
    launch: values.local ? ("local" as const) : ("published" as const),
    prune: values.prune ?? false,
    base: !values["no-base"],
    enrich: values["no-enrich"] ? false : values.enrich,
    json: values.json ?? false,
    help: values.help ?? false,
  };
}

function parse(args: string[]) {
  return parseArgs({
    args,
    strict: true,
    allowPositionals: false,
    options: {
      "marketplace-url": { type: "string" },
      card: { type: "string", multiple: true },
      out: { type: "string" },
      local: { type: "boolean" },
      published: { type: "boolean" },
      prune: { type: "boolean" },
      "no-base": { type: "boolean" },
      enrich: { type: "boolean" },
      "no-enrich": { type: "boolean" },
      json: { type: "boolean" },
      help: { type: "boolean", short: "h" },
    },
  });
}
