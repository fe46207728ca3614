import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "chai";
import type { Address, Hex } from "viem";
import { getAddress, zeroHash } from "viem";
import { generatePrivateKey, privateKeyToAddress } from "viem/accounts";
import type { startDeployTarget } from "../../../testkit/deploy/deployTarget.ts";
import { runDeployCommand, startDeployTarget as start } from "../../../testkit/deploy/deployTarget.ts";
import { abiOf } from "../../protocol/artifacts.ts";
import { ROLES } from "../roles.ts";

const address = () => privateKeyToAddress(generatePrivateKey());

/**
 * `npm run deploy` and `npm run check-deployment` as an operator runs them, as child processes, against a chain
 * started on its own that already has the stablecoin and the identity registry: a deployment with an admin hand-off,
 * a rerun that deploys nothing, keys rotated, a role changed behind the record's back, the admin accepting, and bad
 * input refused with the problem named.
 */
describe("npm run deploy and npm run check-deployment", function () {
  this.timeout(900_000);
  let target: Awaited<ReturnType<typeof startDeployTarget>>;
  let dir: string;
  let env: Record<string, string>;
  const deployerKey = generatePrivateKey();
  const deployer = privateKeyToAddress(deployerKey);
  const adminKey = generatePrivateKey();
  const admin = privateKeyToAddress(adminKey);
  const roles = { treasury: address(), relayers: [address(), address()], facilitator: address(), publisher: address() };
  let contracts: { escrow: Address; registry: Address };

  /** Writes a parameters file (Ignition's format) and returns its path. */
  function parametersFile(name: string, global: Record<string, unknown>): string {
    const file = join(dir, `${name}.json`);
    writeFileSync(file, JSON.stringify({ $global: global }, null, 2));
    return file;
  }
  const parameters = (extra: Record<string, unknown> = {}) => ({
    admin,
    ...roles,
    tokenAddress: target.token,
    identityAddress: target.identity,
    feeBps: 300,
    adminDelay: 3_600,
    ...extra,
  });
  const hasRole = (contract: "escrow" | "registry", role: Hex, account: Address) =>
    target.client.readContract({
      address: contracts[contract],
      abi: abiOf(contract === "escrow" ? "PaymentEscrow" : "ResourceRegistry"),
      functionName: "hasRole",
      args: [role, account],
    });

  before(async function () {
    dir = mkdtempSync(join(tmpdir(), "deploy-commands-"));
    target = await start();
    await target.fund(deployer);
    env = { RPC_URL: target.rpcUrl, DEPLOYER_KEY: deployerKey, DEPLOYMENT_DIR: join(dir, "record") };
  });

  after(async function () {
    await target?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("refuses bad input before sending anything, naming the problem", async function () {
    const { admin: _admin, ...noAdmin } = parameters();
    const [missing, badAddress, toDeployer, unreachable, insideCheckout] = await Promise.all([
      runDeployCommand("deploy", ["--parameters", parametersFile("no-admin", noAdmin)], env),
      runDeployCommand("deploy", ["--parameters", parametersFile("bad", parameters({ treasury: "0x1234" }))], env),
      runDeployCommand(
        "deploy",
        ["--parameters", parametersFile("deployer", parameters({ publisher: deployer }))],
        env,
      ),
      runDeployCommand("deploy", ["--parameters", parametersFile("ok", parameters())], {
        ...env,
        RPC_URL: "http://127.0.0.1:9",
      }),
      runDeployCommand("deploy", ["--parameters", parametersFile("ok", parameters())], {
        ...env,
        DEPLOYMENT_DIR: "ignition/deployments/operator",
      }),
    ]);
    for (const run of [missing, badAddress, toDeployer, unreachable, insideCheckout]) {
      expect(run.code, run.stderr).to.equal(1);
      expect(run.stderr, "no stack trace").not.to.match(/\n\s+at /);
    }
    expect(missing.stderr).to.match(/\$global\.admin: .*(expected string|Required|received undefined)/i);
    expect(badAddress.stderr).to.include("$global.treasury: address must be 0x followed by 40 hex digits");
    expect(toDeployer.stderr).to.include(`$global.publisher: ${deployer} is the deployer`);
    // Printed by its host only: an RPC URL's path, query or credentials hold a provider's API key.
    expect(unreachable.stderr).to.include("cannot reach the RPC at 127.0.0.1:9 (");
    expect(insideCheckout.stderr).to.match(/DEPLOYMENT_DIR: .*ignition\/deployments\/operator is inside the checkout/);
    expect(await target.client.getTransactionCount({ address: deployer }), "nothing was sent").to.equal(0);
    expect(existsSync(env.DEPLOYMENT_DIR!)).to.equal(false);
  });

  it("deploys, grants every role, begins the admin hand-off and leaves the deployer no role, with progress", async function () {
    const run = await runDeployCommand("deploy", ["--parameters", parametersFile("deploy", parameters())], env);
    expect(run.code, `${run.stdout}\n${run.stderr}`).to.equal(0);
    expect(run.stdout).to.include("[deploy] deploying ExternalStack#PaymentEscrow");
    expect(run.stdout).to.include("ExternalStack#PaymentEscrow: confirmed");
    expect(run.stdout).to.include(`admin hand-off of the escrow to ${admin} begun`);
    expect(run.stdout).to.match(/the deployer renounces PAUSER_ROLE on the escrow/);
    expect(run.stdout).not.to.include("MISMATCH");

    const record = JSON.parse(readFileSync(join(env.DEPLOYMENT_DIR!, "deployment.json"), "utf8"));
    contracts = { escrow: record.contracts.escrow, registry: record.contracts.registry };
    expect(record.adminHandOff.to).to.equal(admin);
    for (const relayer of roles.relayers)
      expect(await hasRole("escrow", ROLES.escrow.RELAYER_ROLE, relayer)).to.equal(true);
    expect(await hasRole("registry", ROLES.registry.FACILITATOR_ROLE, roles.facilitator)).to.equal(true);
    expect(await hasRole("registry", ROLES.registry.PUBLISHER_ROLE, roles.publisher)).to.equal(true);
    expect(await hasRole("escrow", ROLES.escrow.PAUSER_ROLE, admin)).to.equal(true);
    expect(await hasRole("escrow", ROLES.escrow.PAUSER_ROLE, deployer), "the deployer renounced pausing").to.equal(
      false,
    );
    for (const contract of ["escrow", "registry"] as const) {
      const [next] = await target.client.readContract({
        address: contracts[contract],
        abi: abiOf("PaymentEscrow"),
        functionName: "pendingDefaultAdmin",
      });
      expect(getAddress(next), `${contract}'s pending admin`).to.equal(admin);
    }

    const verification = JSON.parse(readFileSync(join(env.DEPLOYMENT_DIR!, "verification", "contracts.json"), "utf8"));
    expect(verification.map((v: { contract: string }) => v.contract)).to.deep.equal([
      "ResourceRegistry",
      "PaymentEscrow",
    ]);
    const escrowEntry = verification[1];
    expect(escrowEntry.contractName).to.equal("project/contracts/PaymentEscrow.sol:PaymentEscrow");
    expect(escrowEntry.compilerVersion).to.match(/^v0\.8\.30\+commit\./);
    expect(escrowEntry.constructorArguments).to.match(/^0x[0-9a-f]{384}$/);
    const input = JSON.parse(readFileSync(join(env.DEPLOYMENT_DIR!, "verification", escrowEntry.input), "utf8"));
    expect(input.language).to.equal("Solidity");
    expect(Object.keys(input.sources)).to.include("project/contracts/PaymentEscrow.sol");
  });

  it("check-deployment reads it back: every row agrees, the hand-off shown as pending", async function () {
    const run = await runDeployCommand("check-deployment", [], env);
    expect(run.code, `${run.stdout}\n${run.stderr}`).to.equal(0);
    for (const check of [
      "PaymentEscrow bytecode",
      "escrow's registry",
      "escrow's treasury",
      "fee (basis points)",
      "escrow's EIP-712 domain",
      "token's EIP-712 domain (USDC 2)",
      "escrow RELAYER_ROLE holders",
      "registry PUBLISHER_ROLE holders",
      "escrow admin",
    ])
      expect(run.stdout, check).to.match(new RegExp(`^${check.replace(/[()]/g, "\\$&")}\\s+.*\\s+ok\\s`, "m"));
    expect(run.stdout).to.match(/hand-off to 0x[0-9a-fA-F]{40} acceptable from/);
    expect(run.stdout).not.to.include("MISMATCH");
  });

  it("a second deploy with the same record deploys and sends nothing", async function () {
    const nonce = await target.client.getTransactionCount({ address: deployer });
    const run = await runDeployCommand("deploy", ["--parameters", join(dir, "deploy.json")], env);
    expect(run.code, `${run.stdout}\n${run.stderr}`).to.equal(0);
    expect(run.stdout).not.to.match(/deploying ExternalStack#|sent 0x|granted|revoked|begun/);
    expect(await target.client.getTransactionCount({ address: deployer })).to.equal(nonce);
  });

  it("a key no longer listed loses its role and a new one gains it", async function () {
    const [kept, dropped] = roles.relayers as [Address, Address];
    const added = address();
    const rotated = parametersFile("rotated", parameters({ relayers: [kept, added] }));
    const run = await runDeployCommand("deploy", ["--parameters", rotated], env);
    expect(run.code, `${run.stdout}\n${run.stderr}`).to.equal(0);
    expect(run.stdout).to.include(`revoked RELAYER_ROLE on the escrow from ${dropped}`);
    expect(run.stdout).to.include(`granted RELAYER_ROLE on the escrow to ${added}`);
    expect(await hasRole("escrow", ROLES.escrow.RELAYER_ROLE, dropped)).to.equal(false);
    expect(await hasRole("escrow", ROLES.escrow.RELAYER_ROLE, added)).to.equal(true);
    roles.relayers = [kept, added];
  });

  it("binds contracts already deployed, given by address, into a new record without deploying them again", async function () {
    const nonce = await target.client.getTransactionCount({ address: deployer });
    const reuse = { ...env, DEPLOYMENT_DIR: join(dir, "second-record") };
    const bound = parametersFile(
      "reuse",
      parameters({ relayers: roles.relayers, registryAddress: contracts.registry, escrowAddress: contracts.escrow }),
    );
    const run = await runDeployCommand("deploy", ["--parameters", bound], reuse);
    expect(run.code, `${run.stdout}\n${run.stderr}`).to.equal(0);
    expect(run.stdout).to.include("binding ExternalStack#ExistingPaymentEscrow by address");
    expect(run.stdout).not.to.match(/deploying ExternalStack#|granted|revoked/);
    expect(await target.client.getTransactionCount({ address: deployer })).to.equal(nonce);
    const first = JSON.parse(readFileSync(join(env.DEPLOYMENT_DIR!, "deployment.json"), "utf8"));
    const second = JSON.parse(readFileSync(join(reuse.DEPLOYMENT_DIR, "deployment.json"), "utf8"));
    expect(second.contracts).to.deep.equal(first.contracts);
    expect(second.startBlocks, "found on chain for contracts bound by address").to.deep.equal(first.startBlocks);
    expect(second.reused).to.deep.equal(["registry", "escrow"]);
  });

  it("check-deployment fails when a role is granted behind the record's back", async function () {
    const stranger = address();
    const deployerWallet = target.wallet(deployerKey);
    const hash = await deployerWallet.writeContract({
      address: contracts.escrow,
      abi: abiOf("PaymentEscrow"),
      functionName: "grantRole",
      args: [ROLES.escrow.RELAYER_ROLE, stranger],
    });
    await target.client.waitForTransactionReceipt({ hash });
    const run = await runDeployCommand("check-deployment", [], env);
    expect(run.code).to.equal(1);
    expect(run.stdout).to.match(new RegExp(`^escrow RELAYER_ROLE holders\\s+.*MISMATCH\\s+.*${stranger}`, "m"));
    expect(run.stderr).to.include("escrow RELAYER_ROLE holders");
  });

  it("after the delay the admin accepts; a later role change names the calls the admin must send", async function () {
    await target.fund(admin);
    await target.advance(3_601);
    for (const contract of ["escrow", "registry"] as const) {
      const hash = await target.wallet(adminKey).writeContract({
        address: contracts[contract],
        abi: abiOf("PaymentEscrow"),
        functionName: "acceptDefaultAdminTransfer",
      });
      expect((await target.client.waitForTransactionReceipt({ hash })).status).to.equal("success");
    }
    expect(await hasRole("escrow", zeroHash, deployer)).to.equal(false);
    const extra = address();
    const run = await runDeployCommand(
      "deploy",
      ["--parameters", parametersFile("after", parameters({ relayers: [...roles.relayers, extra] }))],
      env,
    );
    expect(run.code).to.equal(1);
    expect(run.stderr).to.include(`the admin ${admin} must send:`);
    expect(run.stderr).to.include(
      `grantRole(${ROLES.escrow.RELAYER_ROLE}, ${extra}) on the escrow ${contracts.escrow}`,
    );
    expect(run.stderr, "and revoke the stranger").to.match(
      /revokeRole\(0x[0-9a-f]{64}, 0x[0-9a-fA-F]{40}\) on the escrow/,
    );
  });
});
