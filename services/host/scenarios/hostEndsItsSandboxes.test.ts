import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { expect } from "chai";
import { until } from "../../../testkit/until.ts";
import { configureWorkerd } from "../configureWorkerd.ts";
import { startWorkerd } from "../startWorkerd.ts";

const modules = {
  configure: new URL("../configureWorkerd.ts", import.meta.url).pathname,
  start: new URL("../startWorkerd.ts", import.meta.url).pathname,
};

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.[0] !== "Z";
  } catch {
    return false;
  }
};

/** The pids of the processes whose command line names `file` (a workerd, and the wrapper's watcher beside it). */
const naming = (file: string) =>
  readdirSync("/proc")
    .filter((entry) => /^\d+$/.test(entry))
    .map(Number)
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(file);
      } catch {
        return false;
      }
    });

/**
 * A host that ends without stopping its sandboxes (killed, crashed) takes them with it: its workerd processes do not
 * live on orphaned, holding their memory, and a stopped workerd leaves nothing behind it either.
 */
describe("a host's workerd processes end with it", function () {
  this.timeout(120_000);

  it("when the host is killed (SIGKILL), its workerd process ends too", async function () {
    const script = `import { configureWorkerd } from ${JSON.stringify(modules.configure)};
      import { startWorkerd } from ${JSON.stringify(modules.start)};
      const workerd = await startWorkerd({ configFile: configureWorkerd({ allowNetwork: [], heapMb: 64 }), dataLimitMb: 1024 });
      console.log(workerd.pid); setInterval(() => {}, 1000);`;
    const host = spawn(process.execPath, ["--input-type=module", "-e", script], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    const pid = await new Promise<number>((resolve, reject) => {
      host.stdout.once("data", (chunk: Buffer) => resolve(Number(chunk.toString().trim())));
      host.once("exit", (code) => reject(new Error(`the host exited with ${code} before starting workerd`)));
    });
    expect(alive(pid), "workerd runs").to.equal(true);
    host.kill("SIGKILL");
    await until(() => (alive(pid) ? undefined : true), 30_000, "workerd's end after its host's");
  });

  it("when workerd is stopped, or exits on its own, nothing of it is left", async function () {
    for (const end of ["stop", "exit"] as const) {
      const configFile = configureWorkerd({ allowNetwork: [], heapMb: 64 });
      const workerd = await startWorkerd({ configFile, dataLimitMb: 1024 });
      expect(naming(configFile), "workerd and its watcher").to.have.length(2);
      if (end === "stop") await workerd.kill();
      else process.kill(workerd.pid, "SIGKILL");
      await workerd.exited;
      await until(() => (naming(configFile).length === 0 ? true : undefined), 30_000, `nothing left after ${end}`);
    }
  });
});
