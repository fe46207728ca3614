import { spawnSync } from "node:child_process";
import { expect } from "chai";
import { envCount, envCounts } from "./benchEnv.ts";

/** envCount (or envCounts) run in a child with the variable set, for what it prints and its exit code. */
function inChild(value: string, least: number, read = "envCount") {
  const fallback = read === "envCount" ? "7" : "[7]";
  const code = `import("./bench/benchEnv.ts").then((m) => console.log(m.${read}("BENCH_X", ${fallback}, ${least})))`;
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

  it("envCounts reads a comma-separated list, and stops for any item that is not a whole number of at least `least`", function () {
    delete process.env.BENCH_ENV_TEST;
    expect(envCounts("BENCH_ENV_TEST", [32, 128])).to.deep.equal([32, 128]);
    process.env.BENCH_ENV_TEST = " 1, 64 ,";
    expect(envCounts("BENCH_ENV_TEST", [32])).to.deep.equal([1, 64]);
    process.env.BENCH_ENV_TEST = "";
    expect(envCounts("BENCH_ENV_TEST", [32])).to.deep.equal([]);
    delete process.env.BENCH_ENV_TEST;
    for (const value of ["32,x", "0", "32,1.5"]) {
      const child = inChild(value, 1, "envCounts");
      expect(child.status, value).to.equal(2);
      expect(child.stderr, value).to.match(
        new RegExp(`^BENCH_X=${value.replace(".", "\\.")}: must be (a whole number|whole numbers) of at least 1\n$`),
      );
    }
    expect(inChild("3,4", 1, "envCounts").stdout).to.equal("[ 3, 4 ]\n");
  });
});
