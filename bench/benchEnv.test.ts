import { spawnSync } from "node:child_process";
import { expect } from "chai";
import { envCount } from "./benchEnv.ts";

/** envCount run in a child with the variable set, for what it prints and its exit code. */
function inChild(value: string, least: number) {
  const code = `import("./bench/benchEnv.ts").then((m) => console.log(m.envCount("BENCH_X", 7, ${least})))`;
  return spawnSync(process.execPath, ["--input-type=module", "-e", code], {
    encoding: "utf8",
    env: { ...process.env, BENCH_X: value },
  });
}

describe("envCount", function () {
  it("takes the fallback when the variable is unset or empty, and a whole number when given", function () {
    delete process.env.BENCH_ENV_TEST;
    expect(envCount("BENCH_ENV_TEST", 5)).to.equal(5);
    process.env.BENCH_ENV_TEST = " ";
    expect(envCount("BENCH_ENV_TEST", 5)).to.equal(5);
    process.env.BENCH_ENV_TEST = "12";
    expect(envCount("BENCH_ENV_TEST", 5)).to.equal(12);
    process.env.BENCH_ENV_TEST = "0";
    expect(envCount("BENCH_ENV_TEST", 5, 0)).to.equal(0);
    delete process.env.BENCH_ENV_TEST;
  });

  it("stops with exit code 2 and a line naming the variable for zero, a fraction, a negative or a word", function () {
    for (const value of ["0", "1.5", "-3", "many", "1e3"]) {
      const child = inChild(value, 1);
      expect(child.status, value).to.equal(2);
      expect(child.stderr, value).to.equal(`BENCH_X=${value}: must be a whole number of at least 1\n`);
      expect(child.stdout, value).to.equal("");
    }
    expect(inChild("0", 0).stdout).to.equal("0\n");
  });
});
