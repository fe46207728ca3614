import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "chai";
import { generatePrivateKey, privateKeyToAddress } from "viem/accounts";
import { TEST_NETWORK } from "../protocol/constants.ts";
import { DeployError } from "./deployError.ts";
import type { DeploymentRecord } from "./deploymentRecord.ts";
import { readDeploymentRecord, readJournal, recordFiles, writeDeploymentRecord } from "./deploymentRecord.ts";
import { parseDeployParameters } from "./deployParameters.ts";
import { runIgnition } from "./runIgnition.ts";

const address = () => privateKeyToAddress(generatePrivateKey());

describe("the deployment record: a damaged file is named, with what to do", function () {
  let dir: string;
  const deployer = address();
  const record: DeploymentRecord = {
    chainId: TEST_NETWORK.chainId,
    network: TEST_NETWORK.name,
    deployer,
    contracts: { token: address(), identity: address(), registry: address(), escrow: address() },
    startBlocks: { ResourceRegistry: 12, PaymentEscrow: 13 },
    reused: [],
  };
  const parameters = parseDeployParameters(
    {
      admin: address(),
      treasury: address(),
      relayers: [address()],
      facilitator: address(),
      publisher: address(),
      identityAddress: address(),
    },
    { deployer, network: TEST_NETWORK.name, source: "deploy.json" },
  );
  const thrown = (read: () => unknown): string => {
    try {
      read();
    } catch (error) {
      expect(error).to.be.instanceOf(DeployError);
      return (error as DeployError).shortMessage;
    }
    throw new Error("expected a DeployError");
  };

  beforeEach(function () {
    dir = mkdtempSync(join(tmpdir(), "deployment-record-"));
    writeDeploymentRecord(dir, record, parameters);
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("reads back what it wrote", function () {
    const back = readDeploymentRecord(dir);
    expect(back.record).to.deep.equal(record);
    expect(back.parameters).to.deep.equal(parameters);
  });

  it("a deployment.json cut short names the file and says to run npm run deploy again or restore it", function () {
    const file = recordFiles(dir).record;
    writeFileSync(file, readFileSync(file, "utf8").slice(0, 40));
    const message = thrown(() => readDeploymentRecord(dir));
    expect(message).to.include(`${file} is damaged, not JSON`);
    expect(message).to.match(/run npm run deploy again with the same --parameters file .* restore DEPLOYMENT_DIR/);
  });

  it("a deployment.json that is JSON but not a record names the file and the field", function () {
    const file = recordFiles(dir).record;
    writeFileSync(file, JSON.stringify({ ...record, contracts: { ...record.contracts, escrow: "0x12" } }));
    expect(thrown(() => readDeploymentRecord(dir))).to.match(
      new RegExp(`^${file} is damaged: contracts\\.escrow: address must be 0x followed by 40 hex digits`),
    );
  });

  it("a missing or damaged parameters.json is named", function () {
    const file = recordFiles(dir).parameters;
    rmSync(file);
    expect(thrown(() => readDeploymentRecord(dir))).to.match(new RegExp(`^cannot read ${file} \\(ENOENT\\)`));
    writeFileSync(file, "{");
    expect(thrown(() => readDeploymentRecord(dir))).to.include(`${file} is damaged, not JSON`);
  });

  it("a journal whose last line is cut short names the file and the line, also before Ignition runs", async function () {
    const file = recordFiles(dir).journal;
    const whole = JSON.stringify({ type: "DEPLOYMENT_INITIALIZE", futureId: "x" });
    writeFileSync(file, `${whole}\n${whole}\n${whole.slice(0, 20)}`);
    const message = thrown(() => readJournal(dir));
    expect(message).to.match(new RegExp(`^${file} is damaged: line 3 is not JSON .*restore DEPLOYMENT_DIR`));
    expect(message).to.match(/that line removed, then run npm run deploy again$/);
    const ignition = await runIgnition({
      rpcUrl: "http://127.0.0.1:9",
      deploymentDir: dir,
      module: {} as never,
      parameters: {},
    }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(ignition).to.be.instanceOf(DeployError);
    expect((ignition as DeployError).shortMessage).to.equal(message);
  });
});
