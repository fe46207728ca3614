import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { expect } from "chai";
import { compileSchema } from "../../gate/compileSchema.ts";

const MODULE = fileURLToPath(new URL("./schemaArbitrary.ts", import.meta.url));

/**
 * Draws 200 candidates of each schema in a child process (a draw that never ends blocks its whole thread, so the test
 * could not time it out in its own) and answers, per schema, how many the schema accepts; null when the child had to
 * be stopped after 20 s or failed.
 */
function draw(schemas: object[]): number[] | null {
  const script = `
    import fc from "fast-check";
    import { schemaArbitrary } from ${JSON.stringify(MODULE)};
    const schemas = JSON.parse(process.argv[1]);
    process.stdout.write(JSON.stringify(schemas.map((s) => fc.sample(schemaArbitrary(s), { numRuns: 200, seed: 7 }))));
  `;
  const child = spawnSync(process.execPath, ["--input-type=module", "-e", script, JSON.stringify(schemas)], {
    encoding: "utf8",
    timeout: 20_000,
    maxBuffer: 64 * 1024 * 1024,
  });
  if (child.status !== 0) return null;
  const samples = JSON.parse(child.stdout) as unknown[][];
  return samples.map((values, i) => {
    const validate = compileSchema(schemas[i] as Record<string, unknown>, "schema");
    return values.filter((value) => validate(value)).length;
  });
}

describe("schemaArbitrary: candidate inputs drawn from a contract's request schema", function () {
  this.timeout(60_000);

  it("attack: a schema whose lengths no awkward constant meets draws, never spins (a string of minLength 8)", function () {
    // Before, a filter no constant could pass made fast-check draw forever, synchronously: the studio's verify stage
    // stopped every draft and route of the service, /health included, for any contract with a minLength of 5 or more.
    const accepted = draw([
      { type: "string", minLength: 8 },
      { type: "object", properties: { code: { type: "string", minLength: 12, maxLength: 12 } }, required: ["code"] },
    ]);
    expect(accepted, "the draw ended").to.not.equal(null);
    expect(accepted?.every((n) => n > 100)).to.equal(true);
  });

  it("draws for schemas fast-check cannot follow (a lookahead, bounds past 32 bits or 1e15, huge minimums), and they judge", function () {
    // Before, each of these threw while the arbitrary was built: verify failed as internal_error, and no repair ran.
    const accepted = draw([
      { type: "string", pattern: "^(?=.*\\d)[a-z0-9]{8}$" },
      { type: "integer", minimum: 1_700_000_000_000 },
      { type: "number", minimum: 1e16 },
      { type: "integer", minimum: 10, maximum: 5 },
      { type: "string", pattern: "^a{100}$", maxLength: 10 },
      { type: "array", minItems: 1_000_000 },
    ]);
    expect(accepted, "the draw ended").to.not.equal(null);
    const [lookahead, timestamp, large, inverted, impossible, huge] = accepted ?? [];
    expect(timestamp).to.be.greaterThan(100);
    expect(large).to.be.greaterThan(100);
    // Unsatisfiable or not modelled: drawn, refused by the schema, reported by verify as too few inputs.
    expect([lookahead, inverted, impossible, huge].every((n) => typeof n === "number")).to.equal(true);
  });
});
