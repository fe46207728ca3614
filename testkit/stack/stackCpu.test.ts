import { spawn } from "node:child_process";
import { expect } from "chai";
import { sleep } from "../sleep.ts";
import { cpuSince, readStackCpu } from "./stackCpu.ts";

/** Reads CPU per part from /proc: a process counts toward its own part, or its nearest ancestor's. */
describe("readStackCpu", function () {
  this.timeout(30_000);

  it("sums a part's CPU over its process and the children that name no part", async function () {
    // A "facilitator" (its command line names services/facilitator/main.ts) whose child busy-loops for 600 ms.
    const busy = "const end = Date.now() + 600; while (Date.now() < end);";
    const parent = spawn(
      process.execPath,
      [
        "-e",
        `const c = require("node:child_process").spawn(process.execPath, ["-e", ${JSON.stringify(`${busy} setTimeout(() => {}, 5000)`)}], { stdio: "ignore" }); process.on("SIGTERM", () => { c.kill(); process.exit(0); }); setTimeout(() => {}, 10000);`,
        "services/facilitator/main.ts",
      ],
      { stdio: "ignore" },
    );
    try {
      const before = readStackCpu(parent.pid!);
      await sleep(1_500);
      const after = readStackCpu(parent.pid!);
      expect(after.size, "the parent and its child").to.equal(2);
      const used = cpuSince(before, after);
      expect(used.facilitator).to.be.greaterThan(0.3);
      expect(used.other).to.equal(0);
      expect(used.indexer).to.equal(0);
    } finally {
      parent.kill("SIGTERM");
      await new Promise((resolve) => parent.once("exit", resolve));
    }
  });
});
