import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { createWriteStream, mkdirSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Address, Hex } from "viem";
import { createPublicClient, createWalletClient, getAddress, http, parseUnits } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { ponderCommand } from "../../indexer/ponder/ponderCommand.ts";
import { abiOf } from "../protocol/artifacts.ts";
import { serviceChain } from "../protocol/chain.ts";
import { CHAIN_ID } from "../protocol/constants.ts";
import { defined } from "../protocol/defined.ts";
import type { Part } from "./childProcess.ts";
import { answers, rpcAnswers, setAutomine, startPart } from "./childProcess.ts";
import { deployContracts, deploymentDir } from "./deployContracts.ts";
import { DEV_ROLE, devKey, isDevKey } from "./devAccounts.ts";
import { fundBuyer } from "./fundBuyer.ts";
import { parseCommandLine } from "./parseCommandLine.ts";
import { assertPortFree } from "./ports.ts";
import { publishSamples } from "./publishSamples.ts";
import { loadStackEnv, stackEnvSchema } from "./stackConfig.ts";
import { writeStackFile } from "./stackFile.ts";

/**
 * `npm start`: the whole system on one machine. Embedded defaults: a Hardhat EDR node (chain 5042002), the
 * contracts deployed through Ignition, the facilitator, and demo buyers funded; with RPC_URL (external mode) it
 * runs against that chain instead and deploys only what is missing. Writes STACK_DIR/stack.json.
 */
const defaults: Record<string, unknown> = stackEnvSchema.parse({});
parseCommandLine(
  `usage: npm start

The whole system on one machine: chain, contracts, indexer, facilitator, host, marketplace, sample resources, demo
buyers and the studio; writes $STACK_DIR/stack.json; Ctrl-C stops it. Settings, from the environment (README.md,
"Settings of npm start"), with their defaults:

${Object.keys(stackEnvSchema.shape)
  .map((name) => `  ${name.padEnd(18)} ${defaults[name] === undefined ? "(unset)" : String(defaults[name])}`)
  .join("\n")}

The studio's STUDIO_LLM_* settings pass through to it (services/studio/README.md).`,
  {},
);
const root = resolve(new URL("../..", import.meta.url).pathname);
const started = performance.now();
const env = loadStackEnv(process.env);
const external = env.RPC_URL !== undefined;
const deploymentId = external ? (env.DEPLOYMENT_ID ?? `stack-${CHAIN_ID}`) : "local-stack";
const stackDir = resolve(root, env.STACK_DIR);
const logDir = join(stackDir, "logs");
const dataDir = join(stackDir, "data");
const parts: Part[] = [];
const bin = (name: string) => join(root, "node_modules", ".bin", name);
const say = (line: string) =>
  process.stdout.write(`[stack ${((performance.now() - started) / 1000).toFixed(1).padStart(5)}s] ${line}\n`);

let stopping: Promise<never> | undefined;
/** Stops every part, last started first, then exits; a second call (SIGTERM, then our parent going away) waits for the first. */
function stop(code: number): Promise<never> {
  stopping ??= (async () => {
    say("stopping");
    for (const part of [...parts].reverse()) await part.stop();
    process.exit(code);
  })();
  return stopping;
}
process.once("SIGINT", () => void stop(0));
process.once("SIGTERM", () => void stop(0));
// npm does not pass SIGTERM on to the script it runs: when whatever started us goes away, stop too.
const parent = process.ppid;
setInterval(() => {
  if (process.ppid !== parent) void stop(0);
}, 500).unref();

function logFile(name: string) {
  const stream = createWriteStream(join(logDir, `${name}.log`), { flags: "w" });
  return (line: string) => stream.write(`${line}\n`);
}

async function main() {
  mkdirSync(logDir, { recursive: true });
  if (!external) rmSync(dataDir, { recursive: true, force: true });
  mkdirSync(dataDir, { recursive: true });

  const ports: [number, string][] = [
    [env.FACILITATOR_PORT, "FACILITATOR_PORT"],
    [env.HOST_PORT, "HOST_PORT"],
    [env.MARKETPLACE_PORT, "MARKETPLACE_PORT"],
    [env.INDEXER_PORT, "INDEXER_PORT"],
    [env.STUDIO_PORT, "STUDIO_PORT"],
    ...(external ? [] : ([[env.CHAIN_PORT, "CHAIN_PORT"]] as [number, string][])),
  ];
  for (const [port, setting] of ports) await assertPortFree(port, setting);

  say("compiling contracts");
  execFileSync(bin("hardhat"), ["compile", "--quiet"], { cwd: root, stdio: ["ignore", "ignore", "inherit"] });

  const keys = external ? externalKeys() : localKeys();
  const rpcUrl = env.RPC_URL ?? `http://127.0.0.1:${env.CHAIN_PORT}`;
  if (!external) {
    say(
      `starting the local chain (Hardhat EDR, chain id ${CHAIN_ID}, mining ${env.CHAIN_MINING === "interval" ? "every 500 ms" : "each transaction"}) on ${rpcUrl}`,
    );
    parts.push(
      await startPart({
        name: "chain",
        command: bin("hardhat"),
        // Hardhat binds 0.0.0.0 inside a container: the chain's unlocked development accounts stay on loopback.
        args: [
          "node",
          "--network",
          env.CHAIN_MINING === "interval" ? "nodeInterval" : "node",
          "--hostname",
          "127.0.0.1",
          "--port",
          String(env.CHAIN_PORT),
        ],
        cwd: root,
        ready: () => rpcAnswers(rpcUrl),
        log: logFile("chain"),
      }),
    );
  }
  const intervalMining = !external && env.CHAIN_MINING === "interval";
  // With 500 ms blocks every set-up transaction would wait for a block (about two minutes in all): set-up is mined
  // at once, and the chain mines only every 500 ms from the moment the stack is ready.
  if (intervalMining) await setAutomine(rpcUrl, true);
  const chainId = await createPublicClient({ transport: http(rpcUrl) }).getChainId();
  if (chainId !== CHAIN_ID) throw new Error(`the chain at ${rpcUrl} has id ${chainId}, expected ${CHAIN_ID}`);

  say("deploying contracts through Ignition");
  const relayers = keys.relayers.map((k) => privateKeyToAccount(k).address);
  const contracts = await deployContracts({
    rpcUrl,
    deploymentId,
    fresh: !external,
    deployerKey: external ? keys.deployer : undefined,
    roles: {
      admin: privateKeyToAccount(keys.deployer).address,
      treasury: keys.treasury,
      relayers,
      facilitator: privateKeyToAccount(keys.facilitator).address,
      publisher: privateKeyToAccount(keys.publisher).address,
    },
    existing:
      external && env.TOKEN_ADDRESS && env.IDENTITY_ADDRESS
        ? { token: getAddress(env.TOKEN_ADDRESS), identity: getAddress(env.IDENTITY_ADDRESS) }
        : undefined,
  });
  say(
    `contracts: escrow ${contracts.escrow}, registry ${contracts.registry}, token ${contracts.token}, identity ${contracts.identity}`,
  );

  const indexerUrl = `http://127.0.0.1:${env.INDEXER_PORT}`;
  say(`starting the indexer (Ponder) on ${indexerUrl}`);
  parts.push(
    await startPart({
      name: "indexer",
      ...ponderCommand([
        "--root",
        join(root, "indexer"),
        "--log-format",
        "json",
        "start",
        "--schema",
        "indexer",
        "--port",
        String(env.INDEXER_PORT),
        "--hostname",
        "127.0.0.1",
        ...(env.DATABASE_URL ? ["--views-schema", "indexer_views"] : []),
      ]),
      cwd: join(root, "indexer"),
      env: {
        RPC_URL: rpcUrl,
        DEPLOYED_ADDRESSES: join(deploymentDir(deploymentId), "deployed_addresses.json"),
        PONDER_PGLITE_DIR: join(dataDir, "ponder"),
        PONDER_DISABLE_CACHE: external ? undefined : "1",
        PONDER_TELEMETRY_DISABLED: "true",
        DATABASE_URL: env.DATABASE_URL,
      },
      ready: () => answers(`${indexerUrl}/ready`),
      readyTimeoutMs: 180_000,
      log: logFile("indexer"),
    }),
  );

  const facilitatorUrl = `http://127.0.0.1:${env.FACILITATOR_PORT}`;
  const callerAuth = (env.CALLER_AUTH ?? (external ? "on" : "off")) === "on";
  if (callerAuth && !env.CALLER_AUTH_SECRET)
    throw new Error("caller auth is on (the default in external mode) but CALLER_AUTH_SECRET is not set");
  say(`starting the facilitator on ${facilitatorUrl}`);
  parts.push(
    await startPart({
      name: "facilitator",
      command: process.execPath,
      args: ["services/facilitator/main.ts"],
      cwd: root,
      env: {
        PORT: String(env.FACILITATOR_PORT),
        RPC_URL: rpcUrl,
        ESCROW_ADDRESS: contracts.escrow,
        REGISTRY_ADDRESS: contracts.registry,
        TOKEN_ADDRESS: contracts.token,
        INDEXER_URL: indexerUrl,
        RELAYER_KEYS: keys.relayers.join(","),
        FACILITATOR_KEY: keys.facilitator,
        DATABASE_URL: env.DATABASE_URL,
        DATA_DIR: join(dataDir, "facilitator"),
        CALLER_AUTH: callerAuth ? "on" : "off",
        CALLER_AUTH_SECRET: env.CALLER_AUTH_SECRET,
        SETTLEMENT: env.SETTLEMENT,
        NODE_ENV: external ? "production" : "development",
      },
      ready: () => answers(`${facilitatorUrl}/ready`),
      log: logFile("facilitator"),
    }),
  );

  const hostUrl = `http://127.0.0.1:${env.HOST_PORT}`;
  const hostToken = env.HOST_TOKEN ?? randomBytes(24).toString("hex");
  say(`starting the resource host (workerd sandboxes) on ${hostUrl}`);
  parts.push(
    await startPart({
      name: "host",
      command: process.execPath,
      args: ["services/host/main.ts"],
      cwd: root,
      env: {
        PORT: String(env.HOST_PORT),
        DATA_DIR: join(dataDir, "host"),
        HOST_TOKEN: hostToken,
        FACILITATOR_URL: facilitatorUrl,
        ESCROW_ADDRESS: contracts.escrow,
        TOKEN_ADDRESS: contracts.token,
        FACILITATOR_AUTH_SECRET: callerAuth ? env.CALLER_AUTH_SECRET : undefined,
        MARKETPLACE_URL: `http://127.0.0.1:${env.MARKETPLACE_PORT}`,
      },
      ready: () => answers(`${hostUrl}/ready`),
      log: logFile("host"),
    }),
  );

  const marketplaceUrl = `http://127.0.0.1:${env.MARKETPLACE_PORT}`;
  const publishToken = env.PUBLISH_TOKEN ?? randomBytes(24).toString("hex");
  say(`starting the marketplace on ${marketplaceUrl}`);
  parts.push(
    await startPart({
      name: "marketplace",
      command: process.execPath,
      args: ["services/marketplace/main.ts"],
      cwd: root,
      env: {
        PORT: String(env.MARKETPLACE_PORT),
        RPC_URL: rpcUrl,
        INDEXER_URL: indexerUrl,
        TOKEN_ADDRESS: contracts.token,
        ESCROW_ADDRESS: contracts.escrow,
        REGISTRY_ADDRESS: contracts.registry,
        IDENTITY_ADDRESS: contracts.identity,
        OPERATOR_KEY: keys.publisher,
        PUBLISH_TOKEN: publishToken,
        DATABASE_URL: env.DATABASE_URL,
        DATA_DIR: join(dataDir, "marketplace"),
        // The stack's resources are served by its own host on 127.0.0.1.
        PROBE_ALLOW_PRIVATE: "on",
      },
      ready: () => answers(`${marketplaceUrl}/ready`),
      log: logFile("marketplace"),
    }),
  );

  let resources: Awaited<ReturnType<typeof publishSamples>> = [];
  if (!external) {
    const creator = privateKeyToAccount(devKey(DEV_ROLE.creator));
    await mint(rpcUrl, contracts.token, creator.address, parseUnits("100", 6));
    say("publishing the sample handlers through the pipeline (moderation, bond, probe, mint, index)");
    resources = await publishSamples({
      creator,
      hostUrl,
      hostToken,
      marketplaceUrl,
      publishToken,
      contracts,
      bond: parseUnits("1", 6),
      say,
    });
  }

  const buyers = external ? [] : await fundDemoBuyers(rpcUrl, contracts.token, contracts.escrow);
  if (buyers.length) say(`funded ${buyers.length} demo buyers (development keys, local chain only)`);

  const studioUrl = `http://127.0.0.1:${env.STUDIO_PORT}`;
  const studioToken = env.STUDIO_TOKEN ?? randomBytes(24).toString("hex");
  const studioBuyer = env.STUDIO_BUYER_KEY ?? buyers[0]?.privateKey;
  if (studioBuyer) {
    say(`starting the studio on ${studioUrl}`);
    parts.push(
      await startPart({
        name: "studio",
        command: process.execPath,
        args: ["services/studio/main.ts"],
        cwd: root,
        env: {
          PORT: String(env.STUDIO_PORT),
          STUDIO_TOKEN: studioToken,
          HOST_URL: hostUrl,
          HOST_TOKEN: hostToken,
          MARKETPLACE_URL: marketplaceUrl,
          PUBLISH_TOKEN: publishToken,
          FACILITATOR_URL: facilitatorUrl,
          RPC_URL: rpcUrl,
          TOKEN_ADDRESS: contracts.token,
          ESCROW_ADDRESS: contracts.escrow,
          REGISTRY_ADDRESS: contracts.registry,
          STUDIO_BUYER_KEY: studioBuyer,
        },
        ready: () => answers(`${studioUrl}/health`),
        log: logFile("studio"),
      }),
    );
  } else say("studio not started: external mode needs STUDIO_BUYER_KEY to pay its self-tests");

  const stack = {
    chainId: CHAIN_ID,
    rpcUrl,
    marketplaceUrl,
    facilitatorUrl,
    hostUrl,
    indexerUrl,
    ...(studioBuyer ? { studioUrl, studioToken } : {}),
    publishToken,
    hostToken,
    contracts,
    buyers,
    resources,
  };
  if (intervalMining) await setAutomine(rpcUrl, false);
  writeStackFile(stackDir, stack);
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  say(`ready in ${seconds}s; wrote ${join(env.STACK_DIR, "stack.json")}; logs in ${join(env.STACK_DIR, "logs")}`);
  process.stdout.write(
    [
      "",
      `  marketplace  ${marketplaceUrl}/resources`,
      `  chain        ${rpcUrl} (chain id ${CHAIN_ID})`,
      `  indexer      ${indexerUrl}`,
      `  facilitator  ${facilitatorUrl}`,
      `  host         ${hostUrl}  (resources at ${hostUrl}/r/<slug>)`,
      ...(studioBuyer ? [`  studio       ${studioUrl}  (bearer studioToken in stack.json)`] : []),
      "",
      `  resources    ${resources.map((r) => r.slug).join(", ") || "(none published)"}`,
      "",
      "  Pay for a call:  npm run demo",
      '  New endpoint:    npm run studio -- "Return the SHA-256 hex digest of a text"',
      "  Ctrl-C stops everything.",
      "",
    ].join("\n"),
  );
}

function localKeys() {
  return {
    publisher: devKey(DEV_ROLE.publisher),
    deployer: devKey(DEV_ROLE.admin),
    relayers: [devKey(DEV_ROLE.relayer)],
    facilitator: devKey(DEV_ROLE.facilitator),
    treasury: privateKeyToAccount(devKey(DEV_ROLE.treasury)).address as Address,
  };
}

function externalKeys() {
  const missing = ["DEPLOYER_KEY", "RELAYER_KEYS", "TREASURY_ADDRESS", "PUBLISHER_KEY"].filter((k) => !process.env[k]);
  if (missing.length) throw new Error(`external mode (RPC_URL set) needs ${missing.join(", ")}`);
  const relayers = defined(env.RELAYER_KEYS, "RELAYER_KEYS")
    .split(",")
    .map((k) => k.trim()) as Hex[];
  const all = [env.DEPLOYER_KEY, ...relayers, env.FACILITATOR_KEY, env.PUBLISHER_KEY].filter(Boolean) as string[];
  if (all.some(isDevKey))
    throw new Error("a well-known development key was given for an external chain; refusing to start");
  return {
    publisher: env.PUBLISHER_KEY as Hex,
    deployer: env.DEPLOYER_KEY as Hex,
    relayers,
    facilitator: (env.FACILITATOR_KEY ?? relayers[0]) as Hex,
    treasury: getAddress(defined(env.TREASURY_ADDRESS, "TREASURY_ADDRESS")),
  };
}

/** Mints test stablecoin to `to` (local chain: the deployer holds the minter role). */
async function mint(rpcUrl: string, token: Address, to: Address, amount: bigint) {
  const chain = serviceChain(rpcUrl);
  const publicClient = createPublicClient({ chain, transport: http(rpcUrl) });
  const admin = createWalletClient({
    account: privateKeyToAccount(devKey(DEV_ROLE.admin)),
    chain,
    transport: http(rpcUrl),
  });
  await publicClient.waitForTransactionReceipt({
    hash: await admin.writeContract({
      address: token,
      abi: abiOf("TestStablecoin"),
      functionName: "mint",
      args: [to, amount],
    }),
  });
}

/** Mints test stablecoin to three development buyers and deposits part of it in the escrow. */
async function fundDemoBuyers(rpcUrl: string, token: Address, escrow: Address) {
  const chain = serviceChain(rpcUrl);
  const transport = http(rpcUrl);
  const publicClient = createPublicClient({ chain, transport });
  const minter = createWalletClient({ account: privateKeyToAccount(devKey(DEV_ROLE.admin)), chain, transport });
  const buyers = [];
  for (let i = 0; i < 3; i++) {
    const privateKey = devKey(DEV_ROLE.buyer + i);
    const buyer = createWalletClient({ account: privateKeyToAccount(privateKey), chain, transport });
    const address = await fundBuyer({
      publicClient,
      minter,
      buyer,
      token,
      escrow,
      mint: parseUnits("1000", 6),
      deposit: parseUnits("100", 6),
    });
    buyers.push({ address, privateKey, label: "local development key: never use on another chain" });
  }
  return buyers;
}

main().catch(async (error: Error) => {
  process.stderr.write(`[stack] failed: ${error.message}\n`);
  await stop(1);
});
