import { resolve } from "node:path";
import { parseCommandLine } from "../stack/parseCommandLine.ts";

const USAGE = `usage: npm run check-deployment

Reads the deployment recorded in DEPLOYMENT_DIR back from the chain and prints a table: every role's holders (from
the contracts' role events: nobody more, nobody less), the admin or its pending hand-off, the fee, the treasury, the
strike policy, the token and registry bindings, the EIP-712 domains, and the deployed bytecode against the build's
artifacts. Exits 1 when any row disagrees with the record. docs/operations.md, "Deploying".

Settings, from the environment:
  NETWORK            arc-testnet: the test network's RPC endpoint (unless RPC_URL is set)
  RPC_URL            the chain's JSON-RPC endpoint (chain 5042002)
  DEPLOYMENT_DIR     the record npm run deploy wrote
  LOG_RANGE_BLOCKS   most blocks one eth_getLogs spans when role events are read (10000)`;

parseCommandLine(USAGE, {});

// The checks' imports (viem, the build's artifacts) take half a second of CPU: loaded after the command line, so that
// --help and a wrong option answer at once.
const [{ checkDeployment, formatCheckTable }, { loadDeployConfig }] = await Promise.all([
  import("./checkDeployment.ts"),
  import("./loadDeployConfig.ts"),
]);
try {
  const config = loadDeployConfig(process.env, {
    root: resolve(new URL("../..", import.meta.url).pathname),
    needsKey: false,
  });
  const rows = await checkDeployment({
    rpcUrl: config.RPC_URL,
    deploymentDir: config.DEPLOYMENT_DIR,
    logRangeBlocks: config.LOG_RANGE_BLOCKS,
  });
  process.stdout.write(formatCheckTable(rows));
  const mismatches = rows.filter((r) => !r.ok);
  if (mismatches.length) {
    process.stderr.write(
      `[check-deployment] ${mismatches.length} mismatch(es): ${mismatches.map((r) => r.check).join(", ")}\n`,
    );
    process.exit(1);
  }
} catch (error) {
  process.stderr.write(`[check-deployment] failed: ${(error as Error).message}\n`);
  process.exit(1);
}
