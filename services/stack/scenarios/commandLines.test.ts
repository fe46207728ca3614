import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { expect } from "chai";

const run = promisify(execFile);
const root = new URL("../../..", import.meta.url).pathname;

/** Every command of the project outside services/buyer, as package.json runs it, with the first line of its usage. */
const COMMANDS: [script: string, usage: string][] = [
  ["services/stack/start.ts", "usage: npm start"],
  ["services/studio/cli.ts", "usage: npm run studio"],
  ["services/studio/main.ts", "usage: node services/studio/main.ts"],
  ["services/keys/cli.ts", "usage: npm run keystore"],
  ["services/deploy/deployCommand.ts", "usage: npm run deploy"],
  ["services/deploy/checkDeploymentCommand.ts", "usage: npm run check-deployment"],
  ["bench/drill.ts", "usage: npm run drill"],
  ["bench/gasReport.ts", "usage: npm run gas"],
  ["bench/stack.ts", "usage: npm run bench:start"],
  ["bench/facilitator.ts", "usage: npm run bench:facilitator"],
  ["bench/gate/bench.ts", "usage: npm run bench:gate"],
  ["bench/marketplace.ts", "usage: npm run bench:discovery"],
  ["bench/indexer.ts", "usage: npm run bench:indexer"],
  ["bench/studio.ts", "usage: npm run bench:studio"],
];

async function node(args: string[]) {
  try {
    const { stdout, stderr } = await run(process.execPath, args, { cwd: root });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe("every command answers --help with its usage (exit 0) and an unknown option with the usage (exit 2)", function () {
  this.timeout(300_000);

  for (const [script, usage] of COMMANDS)
    it(script, async function () {
      // Both at once: each is a Node process of its own, which takes a moment to start.
      const [help, bogus] = await Promise.all([node([script, "--help"]), node([script, "--bogus"])]);
      expect(help.code).to.equal(0);
      expect(help.stdout.startsWith(usage), help.stdout).to.equal(true);
      expect(bogus.code).to.equal(2);
      expect(bogus.stderr).to.match(/^Unknown option '--bogus'/);
      expect(bogus.stderr).to.include(usage);
      expect(bogus.stdout).to.equal("");
    });
});
