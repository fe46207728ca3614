import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "chai";
import { readDeployment } from "./deployment.ts";

describe("readDeployment (the indexer's contracts, from Ignition's output)", function () {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), "deployment-"))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const addresses = {
    "FiatToken#FiatTokenV2_2": "0x5fbdb2315678afecb367f032d93f642f64180aa3",
    "IdentityRegistry#IdentityRegistry": "0xe7f1725e7734ce288f8367e1bb143e90bb3f0512",
    "ResourceRegistry#ResourceRegistry": "0x9fe46736679d2d9a65f0992f2272de9f3c7fa6e0",
    "PaymentEscrow#PaymentEscrow": "0xcf7ed3acca5a467e9e704c703e8d87f634fb0fc9",
  };

  it("reads addresses (checksummed) and start blocks from the journal's deployment receipts", function () {
    writeFileSync(join(dir, "deployed_addresses.json"), JSON.stringify(addresses));
    const journal = [
      { type: "TRANSACTION_CONFIRM", futureId: "ResourceRegistry#ResourceRegistry", receipt: { blockNumber: 7 } },
      { type: "TRANSACTION_CONFIRM", futureId: "PaymentEscrow#PaymentEscrow", receipt: { blockNumber: 9 } },
      { type: "TRANSACTION_CONFIRM", futureId: "IdentityRegistry#IdentityRegistry", receipt: { blockNumber: 3 } },
      { type: "TRANSACTION_CONFIRM", futureId: "PaymentEscrow#grantRelayer", receipt: { blockNumber: 11 } },
    ];
    writeFileSync(join(dir, "journal.jsonl"), journal.map((line) => JSON.stringify(line)).join("\n"));
    expect(readDeployment(join(dir, "deployed_addresses.json"))).to.deep.equal({
      ResourceRegistry: { address: "0x9fE46736679d2D9a65F0992F2272dE9f3c7fa6e0", startBlock: 7 },
      PaymentEscrow: { address: "0xCf7Ed3AccA5a467e9e704C703E8D87F634fB0Fc9", startBlock: 9 },
      IdentityRegistry: { address: "0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512", startBlock: 3 },
    });
  });

  it("starts at block 0 without a journal, and accepts the external stack's existing identity registry", function () {
    const { "IdentityRegistry#IdentityRegistry": identity, ...rest } = addresses;
    writeFileSync(
      join(dir, "deployed_addresses.json"),
      JSON.stringify({ ...rest, "ExternalStack#ExistingIdentity": identity }),
    );
    const found = readDeployment(join(dir, "deployed_addresses.json"));
    expect(found.IdentityRegistry).to.deep.equal({
      address: "0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512",
      startBlock: 0,
    });
    expect(found.ResourceRegistry.startBlock).to.equal(0);
  });

  it("takes the start blocks npm run deploy found for a registry and an escrow bound by address", function () {
    writeFileSync(
      join(dir, "deployed_addresses.json"),
      JSON.stringify({
        "ExternalStack#ExistingIdentity": addresses["IdentityRegistry#IdentityRegistry"],
        "ExternalStack#ExistingResourceRegistry": addresses["ResourceRegistry#ResourceRegistry"],
        "ExternalStack#ExistingPaymentEscrow": addresses["PaymentEscrow#PaymentEscrow"],
      }),
    );
    writeFileSync(
      join(dir, "deployment.json"),
      JSON.stringify({ startBlocks: { ResourceRegistry: 1200, PaymentEscrow: 1201 } }),
    );
    const found = readDeployment(join(dir, "deployed_addresses.json"));
    expect(found.ResourceRegistry.startBlock).to.equal(1200);
    expect(found.PaymentEscrow).to.deep.equal({
      address: "0xCf7Ed3AccA5a467e9e704C703E8D87F634fB0Fc9",
      startBlock: 1201,
    });
    expect(found.IdentityRegistry.startBlock).to.equal(0);
  });

  it("fails with a clear message when the output is missing or incomplete", function () {
    expect(() => readDeployment(join(dir, "nothing.json"))).to.throw(/not found.*DEPLOYED_ADDRESSES/);
    writeFileSync(
      join(dir, "deployed_addresses.json"),
      JSON.stringify({ "FiatToken#FiatTokenV2_2": addresses["FiatToken#FiatTokenV2_2"] }),
    );
    expect(() => readDeployment(join(dir, "deployed_addresses.json"))).to.throw(/no ResourceRegistry/);
  });
});
