import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "chai";
import { loadStackConfig } from "../loadStackConfig.ts";
import { createStackRun } from "../stackRun.ts";
import { writeStack } from "./writeStack.ts";

describe("writeStack in external mode", function () {
  let root: string;
  before(() => {
    root = mkdtempSync(join(tmpdir(), "write-stack-"));
    mkdirSync(join(root, ".stack", "logs"), { recursive: true });
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  it("prints the chain's host only, never a provider's API key in its path or query; the parts use RPC_URL's first endpoint", async function () {
    const env = loadStackConfig({
      RPC_URL: "https://rpc.example.com/v2/SECRET-KEY?token=SECRET-TOO, https://fallback.example.org/SECRET-THREE",
    });
    const run = createStackRun({ root, env, started: performance.now() });
    expect(run.urls.rpc).to.equal("https://rpc.example.com/v2/SECRET-KEY?token=SECRET-TOO");
    const zero = `0x${"00".repeat(20)}` as const;
    run.contracts = { token: zero, identity: zero, registry: zero, escrow: zero };
    const printed: string[] = [];
    const write = process.stdout.write;
    process.stdout.write = ((chunk: string) => printed.push(String(chunk)) > 0) as typeof process.stdout.write;
    try {
      await writeStack(run);
    } finally {
      process.stdout.write = write;
    }
    const output = printed.join("");
    expect(output).to.match(/chain {8}rpc\.example\.com \(chain id 5042002\)/);
    expect(output).not.to.include("SECRET");
    expect(
      readFileSync(join(root, ".stack", "stack.json"), "utf8"),
      "stack.json: for the tools that connect",
    ).to.include("rpc.example.com/v2/SECRET-KEY");
  });

  it("refuses an RPC_URL list holding something that is not a URL, naming the setting", function () {
    expect(() => loadStackConfig({ RPC_URL: "https://rpc.example.com, not a url" })).to.throw(
      /RPC_URL: a URL, or several separated by commas/,
    );
  });
});
