import { expect } from "chai";
import { catalogWriter } from "./catalog/catalogWriter.ts";
import type { CodeWriter, VerifyFailure } from "./contract.ts";
import { writeAndVerify } from "./repair.ts";
import { specify } from "./specify.ts";
import { StudioError } from "./studioError.ts";

const BROKEN =
  'export default { async fetch(request) { const { text } = await request.json(); return Response.json({ algorithm: "SHA-256", hex: "00".repeat(32) }); } };';

/** A writer whose first answer fails verification; it records what each round was given. */
function flakyWriter(fixAfter: number) {
  const catalog = catalogWriter();
  const given: { failures: readonly VerifyFailure[]; previous?: string }[] = [];
  const writer: CodeWriter = {
    name: "flaky",
    specify: (sentence) => catalog.specify(sentence),
    async write(contract, failures, previous) {
      given.push({ failures, previous });
      return given.length > fixAfter ? catalog.write(contract, failures) : BROKEN;
    },
  };
  return { writer, given };
}

describe("the repair loop", function () {
  this.timeout(120_000);

  it("hands the failures (check, input, expected, actual) back to the writer and accepts its repair", async function () {
    const { writer, given } = flakyWriter(1);
    const contract = await specify("Return the SHA-256 hex digest of a text", writer);
    const rounds: [number, boolean][] = [];
    const verified = await writeAndVerify({
      contract,
      writer,
      onAttempt: (round, report) => rounds.push([round, report.passed]),
    });
    expect(rounds).to.deep.equal([
      [0, false],
      [1, true],
    ]);
    expect(given[0]?.failures).to.deep.equal([]);
    const failure = given[1]?.failures.find((f) => f.check === "examples");
    expect(failure?.input).to.deep.equal(contract.examples[0]?.input);
    expect(failure?.expected).to.deep.equal(contract.examples[0]?.output);
    expect(failure?.actual).to.deep.equal({ algorithm: "SHA-256", hex: "00".repeat(32) });
    expect(given[1]?.previous).to.equal(BROKEN);
    expect(verified.report.passed).to.equal(true);
    expect(verified.attempts).to.have.length(2);
  });

  it("stops after the configured rounds with a clear failure report", async function () {
    const { writer, given } = flakyWriter(Number.POSITIVE_INFINITY);
    const contract = await specify("Return the SHA-256 hex digest of a text", writer);
    const error = await writeAndVerify({ contract, writer, rounds: 2 }).catch((e: unknown) => e);
    expect(error).to.be.instanceOf(StudioError);
    expect((error as StudioError).stage).to.equal("repair");
    expect((error as StudioError).code).to.equal("verification_failed");
    expect((error as StudioError).message).to.match(/after 2 repair rounds \(examples\); nothing was deployed/);
    expect((error as StudioError).data.attempts).to.equal(3);
    expect(given).to.have.length(3);
  });
});
