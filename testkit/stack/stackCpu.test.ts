import { spawn } from "node:child_process";
import { expect } from "chai";
import { until } from "../until.ts";
import { cpuSince, readStackCpu } from "./stackCpu.ts";

/** Reads CPU per part from /proc: a process counts toward its own part, or its nearest ancestor's. */
describe("readStackCpu", function () {
  this.timeout(60_000);

  it("sums a part's CPU over its process and the children that name no part", async function () {
    // A "facilitator" (its command line names services/facilitator/main.ts) whose child burns 600 ms of CPU time
    // (counted by the child itself, so a loaded machine only makes it take longer) and then idles.
    const busy = "const end = process.cpuUsage().user + 600_000; while (process.cpuUsage().user < end);";
    const parent = spawn(
      process.execPath,
      [
        "-e",
        `const c = require("node:child_process").spawn(process.execPath, ["-e", ${JSON.stringify(`${busy} setTimeout(() => {}, 30000)`)}], { stdio: "ignore" }); process.on("SIGTERM", () => { c.kill(); process.exit(0); }); setTimeout(() => {}, 60000);`,
        "services/facilitator/main.ts",
      ],
      { stdio: "ignore" },
    );
    try {
      const before = readStackCpu(parent.pid!);
      const used = await until(
        () => {
          const after = readStackCpu(parent.pid!);
          const cpu = cpuSince(before, after);
          return after.size === 2 && cpu.facilitator > 0.5 ? cpu : undefined;
        },
        45_000,
        "the child's 600 ms of CPU counted toward the facilitator",
      );
      expect(used.other).to.equal(0);
      expect(used.indexer).to.equal(0);
    } finally {
      parent.kill("SIGTERM");
      await new Promise((resolve) => parent.once("exit", resolve));
    }
  });
});
