import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "chai";
import { network } from "hardhat";
import type { Address, Hex } from "viem";
import { createWalletClient, getAddress, http, parseEther, parseUnits } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import FiatTokenModule from "../../ignition/modules/FiatToken.ts";
import IdentityRegistryModule from "../../ignition/modules/IdentityRegistry.ts";
import { buyerChain } from "../../services/buyer/src/sdk/buyerChain.ts";
import { payForCall } from "../../services/buyer/src/sdk/payForCall.ts";
import { verifyDebit } from "../../services/buyer/src/sdk/verifyDebit.ts";
import { abiOf } from "../../services/protocol/artifacts.ts";
import { serviceChain } from "../../services/protocol/chain.ts";
import { parseDebits } from "../../services/protocol/parseDebits.ts";
import { publishSamples } from "../../services/stack/publishSamples.ts";
import { serveRpc } from "../../testkit/chain/rpcServer.ts";
import type { TestDatabase } from "../../testkit/postgres/testPostgres.ts";
import { testDatabase } from "../../testkit/postgres/testPostgres.ts";
import { runStack, stackPorts } from "../../testkit/stack/runStack.ts";

/**
 * External mode as an operator runs it against the test network: a chain started separately (an EDR chain served
 * over HTTP, standing in for chain 5042002) that already holds the stablecoin and the ERC-8004 registry, a
 * PostgreSQL database, and fresh keys funded only with what they need. No development key is involved.
 */
describe("npm start in external mode, against a separately started chain and PostgreSQL", function () {
  this.timeout(900_000);
  let database: TestDatabase | undefined;
  const stackDir = mkdtempSync(join(tmpdir(), "stack-external-"));
  const deploymentDir = mkdtempSync(join(tmpdir(), "stack-external-record-"));
  /** Who receives the contracts' admin role: an address no service holds the key of. */
  const admin = privateKeyToAccount(generatePrivateKey()).address;
  const keys = {
    deployer: generatePrivateKey(),
    relayer: generatePrivateKey(),
    relayer2: generatePrivateKey(),
    facilitator: generatePrivateKey(),
    publisher: generatePrivateKey(),
  };
  const treasury = privateKeyToAccount(generatePrivateKey()).address;
  let connection: Awaited<ReturnType<typeof network.create>>;
  let rpc: Awaited<ReturnType<typeof serveRpc>>;
  let existing: { token: Address; identity: Address };
  let env: Record<string, string>;
  let running: Awaited<ReturnType<typeof runStack>> | undefined;
  let startBlock: bigint;

  const faucet = async () => (await connection.viem.getWalletClients())[0]!;
  const publicClient = () => connection.viem.getPublicClient();
  const deployer = privateKeyToAccount(keys.deployer).address;
  /** The relayer pool `RELAYER_KEYS` names: two keys, each with its own nonce lane. */
  const relayers = [keys.relayer, keys.relayer2].map((key) => privateKeyToAccount(key).address);

  /** Sends gas money (and optionally stablecoin) from the chain's first account, as a faucet would. */
  async function fund(to: Address, stablecoin = 0n) {
    const wallet = await faucet();
    const client = await publicClient();
    await client.waitForTransactionReceipt({ hash: await wallet.sendTransaction({ to, value: parseEther("10") }) });
    if (stablecoin > 0n) {
      const token = await connection.viem.getContractAt("IFiatToken", existing.token);
      await client.waitForTransactionReceipt({ hash: await token.write.mint([to, stablecoin]) });
    }
  }

  before(async function () {
    connection = await network.create();
    const { token } = await connection.ignition.deploy(FiatTokenModule);
    const { identity } = await connection.ignition.deploy(IdentityRegistryModule);
    existing = { token: getAddress(token.address), identity: getAddress(identity.address) };
    rpc = await serveRpc(connection.provider);
    for (const key of Object.values(keys)) await fund(privateKeyToAccount(key).address);
    startBlock = await (await publicClient()).getBlockNumber();
    database = await testDatabase("stack_external");
    env = {
      ...(await stackPorts({ external: true })),
      STACK_DIR: stackDir,
      RPC_URL: rpc.url,
      DATABASE_URL: database.url,
      DEPLOYER_KEY: keys.deployer,
      RELAYER_KEYS: `${keys.relayer},${keys.relayer2}`,
      FACILITATOR_KEY: keys.facilitator,
      PUBLISHER_KEY: keys.publisher,
      TREASURY_ADDRESS: treasury,
      TOKEN_ADDRESS: existing.token,
      IDENTITY_ADDRESS: existing.identity,
      ADMIN_ADDRESS: admin,
      DEPLOYMENT_DIR: deploymentDir,
      CALLER_AUTH_SECRET: generatePrivateKey(),
    };
    running = await runStack(env);
  });

  after(async function () {
    running?.kill();
    await rpc?.close();
    await connection?.close();
    await database?.drop().catch(() => {});
    rmSync(deploymentDir, { recursive: true, force: true });
    rmSync(stackDir, { recursive: true, force: true });
  });

  it("deploys only the registry and the escrow, wired to the existing stablecoin, registry, keys and treasury", async function () {
    const { stack } = running!;
    expect(stack.contracts.token).to.equal(existing.token);
    expect(stack.contracts.identity).to.equal(existing.identity);
    expect(stack.buyers, "external mode funds no development buyers").to.deep.equal([]);
    expect(stack.resources, "external mode publishes nothing by itself").to.deep.equal([]);

    const client = await publicClient();
    const created: Address[] = [];
    for (let b = startBlock + 1n, end = await client.getBlockNumber(); b <= end; b++) {
      const block = await client.getBlock({ blockNumber: b, includeTransactions: true });
      for (const tx of block.transactions) {
        expect(getAddress(tx.from), "only the deployer sends transactions while the stack starts").to.equal(deployer);
        if (tx.to === null)
          created.push(getAddress((await client.getTransactionReceipt({ hash: tx.hash })).contractAddress!));
      }
    }
    expect(created).to.have.members([stack.contracts.registry, stack.contracts.escrow]);
    expect(created).to.have.length(2);

    const escrow = await connection.viem.getContractAt("PaymentEscrow", stack.contracts.escrow);
    const registry = await connection.viem.getContractAt("ResourceRegistry", stack.contracts.registry);
    expect(getAddress(await escrow.read.token())).to.equal(existing.token);
    expect(getAddress(await escrow.read.registry())).to.equal(stack.contracts.registry);
    expect(getAddress(await escrow.read.treasury())).to.equal(treasury);
    for (const relayer of relayers)
      expect(await escrow.read.hasRole([await escrow.read.RELAYER_ROLE(), relayer]), relayer).to.equal(true);
    expect(
      await registry.read.hasRole([await registry.read.PUBLISHER_ROLE(), privateKeyToAccount(keys.publisher).address]),
    ).to.equal(true);
    // The admin hand-off has begun (npm run deploy's code): the admin accepts after the delay; the deployer keeps no
    // other role.
    for (const contract of [escrow, registry]) expect((await contract.read.pendingDefaultAdmin())[0]).to.equal(admin);
    expect(await escrow.read.hasRole([await escrow.read.PAUSER_ROLE(), admin])).to.equal(true);
    expect(await escrow.read.hasRole([await escrow.read.PAUSER_ROLE(), deployer])).to.equal(false);
    const facilitatorRole = await registry.read.FACILITATOR_ROLE();
    expect(await registry.read.hasRole([facilitatorRole, privateKeyToAccount(keys.facilitator).address])).to.equal(
      true,
    );
  });

  it("turns caller auth on: the facilitator refuses a call without a caller token", async function () {
    const body = JSON.stringify({ idemKey: `0x${"11".repeat(32)}`, resourceId: `0x${"22".repeat(32)}` });
    const r = await fetch(`${running!.stack.facilitatorUrl}/release`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
    });
    expect(r.status).to.equal(401);
    expect(((await r.json()) as { error: { code: string } }).error.code).to.equal("unauthorized");
  });

  /**
   * Pays echo as `buyerKey` and checks its debit on chain: relayed by one of the operator's relayers, once, for echo.
   * Returns the relayer that sent it.
   */
  async function payEcho(resources: { slug: string; resourceId: Hex; resourceUrl: string }[], buyerKey: Hex) {
    const { stack } = running!;
    const echo = resources.find((r) => r.slug === "echo")!;
    const chain = buyerChain({ rpcUrl: stack.rpcUrl, escrow: stack.contracts.escrow, allowPrivateAddresses: true });
    const result = await payForCall({
      chain,
      account: privateKeyToAccount(buyerKey),
      callUrl: `${echo.resourceUrl}/call`,
      body: { hello: "test network" },
    });
    expect(result.body).to.deep.equal({ echo: { hello: "test network" } });
    const { transaction } = await verifyDebit(chain, result.receipt);
    const receipt = await (await publicClient()).getTransactionReceipt({ hash: transaction });
    expect(relayers, "debits are relayed by the configured relayer pool").to.include(getAddress(receipt.from));
    const debited = parseDebits(receipt.logs, chain.escrow).filter((d) => d.nonce === result.idemKey);
    expect(debited).to.have.length(1);
    expect(debited[0]!.resourceId).to.equal(echo.resourceId);
    return getAddress(receipt.from);
  }

  const creator = privateKeyToAccount(generatePrivateKey());
  const buyerKey = generatePrivateKey();
  let published: Awaited<ReturnType<typeof publishSamples>>;

  it("publishes through the pipeline and settles a paid call with the operator's keys", async function () {
    const { stack } = running!;
    await fund(creator.address, parseUnits("10", 6));
    published = await publishSamples({
      creator,
      hostUrl: stack.hostUrl,
      hostToken: stack.hostToken,
      marketplaceUrl: stack.marketplaceUrl,
      publishToken: stack.publishToken,
      contracts: stack.contracts,
      bond: parseUnits("1", 6),
      say: () => {},
    });
    const buyer = privateKeyToAccount(buyerKey);
    await fund(buyer.address, parseUnits("5", 6));
    const client = await publicClient();
    const buyerWallet = createWalletClient({
      account: buyer,
      chain: serviceChain(stack.rpcUrl),
      transport: http(stack.rpcUrl),
    });
    const token = abiOf("IFiatToken");
    const escrow = abiOf("PaymentEscrow");
    await client.waitForTransactionReceipt({
      hash: await buyerWallet.writeContract({
        address: stack.contracts.token,
        abi: token,
        functionName: "approve",
        args: [stack.contracts.escrow, parseUnits("5", 6)],
      }),
    });
    await client.waitForTransactionReceipt({
      hash: await buyerWallet.writeContract({
        address: stack.contracts.escrow,
        abi: escrow,
        functionName: "deposit",
        args: [parseUnits("5", 6)],
      }),
    });
    // In external mode the escrow book follows the chain a margin below its head (ESCROW_BOOK_MARGIN_BLOCKS, 2), which
    // the test network's 500 ms blocks pass in a second; this chain mines only when sent a transaction.
    await connection.networkHelpers.mine(2);

    await payEcho(published, buyerKey);
  });

  it("settles through every key of a two-key relayer pool: no key lacks the relayer role", async function () {
    // Before the pool was granted in full, every batch of the second key reverted: paid calls alternated 200 / 503.
    const senders = new Set<Address>();
    for (let call = 0; call < 4; call++) senders.add(await payEcho(published, buyerKey));
    expect([...senders]).to.have.members(relayers);
  });

  it("stops cleanly, and a second start deploys nothing new and keeps the listing and the service", async function () {
    expect(await running!.stop(env), "a process of the stack outlived it").to.equal(true);
    const client = await publicClient();
    const nonceBefore = await client.getTransactionCount({ address: deployer });
    const first = running!.stack;

    running = await runStack(env);
    expect(running.stack.contracts).to.deep.equal(first.contracts);
    expect(await client.getTransactionCount({ address: deployer }), "the rerun sent no deployment").to.equal(
      nonceBefore,
    );
    const listed = (await (await fetch(`${running.stack.marketplaceUrl}/resources`)).json()) as { slug: string }[];
    expect(listed.map((r) => r.slug)).to.include("echo");

    await payEcho(published, buyerKey);
    expect(await running.stop(env), "a process of the stack outlived it").to.equal(true);
  });
});

describe("npm start in external mode", function () {
  this.timeout(120_000);

  it("refuses the well-known development keys for a chain that is not the embedded one", async function () {
    const ports = await stackPorts({ external: true });
    const developmentKey = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";
    const child = spawn(process.execPath, ["services/stack/start.ts"], {
      cwd: new URL("../..", import.meta.url).pathname,
      env: {
        ...process.env,
        ...ports,
        STACK_DIR: mkdtempSync(join(tmpdir(), "stack-external-")),
        RPC_URL: "http://127.0.0.1:9",
        DEPLOYER_KEY: developmentKey,
        RELAYER_KEYS: developmentKey,
        PUBLISHER_KEY: developmentKey,
        TREASURY_ADDRESS: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
        CALLER_AUTH_SECRET: "x".repeat(40),
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stdout!.on("data", (c: Buffer) => (out += c.toString()));
    child.stderr!.on("data", (c: Buffer) => (out += c.toString()));
    const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
    expect(code).to.equal(1);
    expect(out).to.match(/well-known development key/);
  });
});
