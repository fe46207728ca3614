import type { ParseArgsConfig } from "node:util";
import { parseArgs } from "node:util";

const HELP = { help: { type: "boolean", short: "h", default: false } } as const;

/**
 * Reads a command's arguments the same way for every command of the project: `--help` (or `-h`) prints `usage` on
 * stdout and exits 0; an unknown option, a missing value or an unexpected argument prints the problem and `usage` on
 * stderr and exits 2.
 * @example const { values, positionals } = parseCommandLine(USAGE, { options: { json: { type: "boolean" } } })
 */
export function parseCommandLine<const T extends Omit<ParseArgsConfig, "args" | "strict">>(
  usage: string,
  config: T,
  args: string[] = process.argv.slice(2),
) {
  const options = { ...config.options, ...HELP };
  let parsed: ReturnType<typeof parseArgs<T & { options: typeof options; strict: true }>>;
  try {
    parsed = parseArgs({ ...config, options, args, strict: true } as T & { options: typeof options; strict: true });
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n\n${usage.trimEnd()}\n`);
    process.exit(2);
  }
  if ((parsed.values as { help?: boolean }).help) {
    process.stdout.write(`${usage.trimEnd()}\n`);
    process.exit(0);
  }
  return parsed;
}

/**
 * Prints a usage problem the parser cannot see (a missing sentence, a bad number) and `usage` on stderr; exits 2.
 * @example if (!sentence) usageError(USAGE, "a sentence or --from <dir> is required")
 */
export function usageError(usage: string, problem: string): never {
  process.stderr.write(`${problem}\n\n${usage.trimEnd()}\n`);
  process.exit(2);
}
