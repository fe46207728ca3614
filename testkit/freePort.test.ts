import { spawn, spawnSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { expect } from "chai";
import { freePort, RESERVED_PORTS, reservePort } from "./freePort.ts";

const freePortModule = new URL("./freePort.ts", import.meta.url).pathname;

describe("freePort", function () {
  this.timeout(60_000);

  it("picks listenable ports below the kernel's range for outgoing connections", async function () {
    const low = Number(readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/)[0]);
    const ports = await Promise.all(Array.from({ length: 20 }, () => freePort()));
    for (const port of ports) {
      expect(port).to.be.below(low).and.at.least(1_024);
      const server = createServer();
      await new Promise<void>((resolve, reject) => {
        server.once("error", reject);
        server.listen(port, "127.0.0.1", resolve);
      });
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it("never hands one port to two living test processes, nor twice to one, before anyone listens on it", async function () {
    // A second test process takes its ports and stays alive (as a stack's part does before it listens).
    const script = `import { freePort } from ${JSON.stringify(freePortModule)};
      const ports = []; for (let i = 0; i < 100; i++) ports.push(await freePort());
      console.log(JSON.stringify(ports)); process.stdin.resume();`;
    const other = spawn(process.execPath, ["--input-type=module", "-e", script], {
      stdio: ["pipe", "pipe", "inherit"],
    });
    try {
      const theirs: number[] = await new Promise((resolve, reject) => {
        let out = "";
        other.stdout.on("data", (chunk) => {
          out += chunk;
          if (out.includes("\n")) resolve(JSON.parse(out));
        });
        other.once("exit", (code) => reject(new Error(`the other process exited with ${code}`)));
      });
      const ours: number[] = [];
      for (let i = 0; i < 300; i++) ours.push(await freePort());
      expect(new Set(ours).size, "ours handed out twice").to.equal(ours.length);
      expect(
        ours.filter((port) => theirs.includes(port)),
        "handed to both",
      ).to.deep.equal([]);
    } finally {
      other.kill();
    }
  });

  it("frees a reservation whose process has ended, and only then", async function () {
    const port = await freePort();
    const file = join(RESERVED_PORTS, String(port));
    expect(readFileSync(file, "utf8")).to.equal(String(process.pid));
    expect(reservePort(port), "reserved by this living process").to.equal(false);

    const living = spawn(process.execPath, ["-e", "process.stdin.resume()"], { stdio: ["pipe", "ignore", "ignore"] });
    try {
      writeFileSync(file, String(living.pid));
      expect(reservePort(port), "reserved by another living process").to.equal(false);
      expect(existsSync(file)).to.equal(true);
    } finally {
      living.kill();
    }

    const ended = spawnSync(process.execPath, ["-e", "console.log(process.pid)"], { encoding: "utf8" });
    writeFileSync(file, ended.stdout.trim());
    expect(reservePort(port), "the removal does not take the port in the same call").to.equal(false);
    expect(existsSync(file), "the ended process's reservation is removed").to.equal(false);
    expect(reservePort(port)).to.equal(true);
    expect(readFileSync(file, "utf8")).to.equal(String(process.pid));
  });
});
