import { execFileSync } from "node:child_process";
import { join, resolve } from "node:path";
import { parseCommandLine, usageError } from "../stack/parseCommandLine.ts";

const USAGE = `usage: npm run deploy -- --parameters <file>

Deploys the ResourceRegistry and the PaymentEscrow through Ignition onto a chain that has the stablecoin and the
ERC-8004 identity registry, or binds ones already deployed; grants each service role to exactly the accounts the
parameters name (revoking any other holder), begins the two-step hand-off of the admin role to the admin and has the
deployer give up every other role; then checks the deployment as npm run check-deployment does. The record (Ignition's
journal, deployment.json, parameters.json, verification/ with the compiler's standard-JSON input) goes to
DEPLOYMENT_DIR: a rerun with the same record deploys nothing. docs/operations.md, "Deploying".

  --parameters <file>   an Ignition parameters file whose "$global" names admin, treasury, relayers, facilitator,
                        publisher and identityAddress (tokenAddress unless NETWORK is set), and may set feeBps,
                        strikeThreshold, slashBps, minBond, bondWithdrawalDelay, adminDelay, and registryAddress or
                        escrowAddress (contracts already deployed, bound instead of deployed)

Settings, from the environment:
  NETWORK            arc-testnet: the test network's RPC endpoint (unless RPC_URL is set) and its USDC
  RPC_URL            the chain's JSON-RPC endpoint (chain 5042002)
  DEPLOYER_KEY       who deploys; or DEPLOYER_KEY_FILE (a keystore) with DEPLOYER_KEY_PASSWORD_FILE
  DEPLOYMENT_DIR     where the record is kept, outside the checkout
  LOG_RANGE_BLOCKS   most blocks one eth_getLogs spans when role events are read (10000)`;

const { values } = parseCommandLine(USAGE, { options: { parameters: { type: "string" } } });
if (!values.parameters) usageError(USAGE, "--parameters <file> is required");

// The deploy's imports (viem, Ignition's artifacts, the checks) take about a second of CPU: loaded after the command
// line, so that --help and a wrong option answer at once.
const [
  { withoutRpcUrls },
  { privateKeyToAddress },
  { checkDeployment, formatCheckTable },
  { readDeployParameters },
  { deploySystem },
  { loadDeployConfig },
] = await Promise.all([
  import("../http/rpcUrls.ts"),
  import("viem/accounts"),
  import("./checkDeployment.ts"),
  import("./deployParameters.ts"),
  import("./deploySystem.ts"),
  import("./loadDeployConfig.ts"),
]);

const root = resolve(new URL("../..", import.meta.url).pathname);
const say = (line: string) => process.stdout.write(`[deploy] ${line}\n`);
try {
  const config = loadDeployConfig(process.env, { root, needsKey: true });
  const deployerKey = config.DEPLOYER_KEY as `0x${string}`;
  const parameters = readDeployParameters(values.parameters, {
    deployer: privateKeyToAddress(deployerKey),
    network: config.NETWORK,
  });
  say("compiling contracts");
  execFileSync(join(root, "node_modules", ".bin", "hardhat"), ["compile", "--quiet"], {
    cwd: root,
    stdio: ["ignore", "ignore", "inherit"],
  });
  await deploySystem({
    rpcUrl: config.RPC_URL,
    deployerKey,
    deploymentDir: config.DEPLOYMENT_DIR,
    parameters,
    network: config.NETWORK,
    logRangeBlocks: config.LOG_RANGE_BLOCKS,
    say,
  });
  say("checking the deployment against the chain");
  const rows = await checkDeployment({
    rpcUrl: config.RPC_URL,
    deploymentDir: config.DEPLOYMENT_DIR,
    logRangeBlocks: config.LOG_RANGE_BLOCKS,
  });
  process.stdout.write(formatCheckTable(rows));
  const mismatches = rows.filter((r) => !r.ok).length;
  say(mismatches ? `${mismatches} check(s) failed` : `deployed; record in ${config.DEPLOYMENT_DIR}`);
  process.exit(mismatches ? 1 : 0);
} catch (error) {
  // A failed request's error names its URL, which may hold the provider's API key: printed with its host only.
  process.stderr.write(`[deploy] failed: ${withoutRpcUrls(error as Error, process.env.RPC_URL).message}\n`);
  process.exit(1);
}
