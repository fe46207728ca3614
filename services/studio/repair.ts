import type { CodeWriter, EndpointContract, VerifyFailure } from "./contract.ts";
import { StudioError } from "./studioError.ts";
import type { VerifyHandlerParameters, VerifyReport } from "./verify/verifyHandler.ts";
import { verifyHandler } from "./verify/verifyHandler.ts";
import { write } from "./write.ts";

/** Default number of repair rounds after the first attempt. */
export const DEFAULT_REPAIR_ROUNDS = 3;

/** A verified handler: its source, the report of its last verification, and every attempt's report. */
export type VerifiedHandler = { source: string; report: VerifyReport; attempts: VerifyReport[] };

export type WriteAndVerifyParameters = {
  contract: EndpointContract;
  writer: CodeWriter;
  /** Rounds of repair after the first attempt (default 3). */
  rounds?: number;
  verify?: Omit<VerifyHandlerParameters, "contract" | "source">;
  /** Called after each attempt, with its round (0 = first write) and report. */
  onAttempt?: (round: number, report: VerifyReport) => void;
};

/** The failures of a report, as the writer receives them (check, input, expected, actual, error). */
export function failuresOf(report: VerifyReport): VerifyFailure[] {
  return report.checks.flatMap((check) => check.failures);
}

/**
 * Stages 2 to 4: writes the handler, verifies it, and on failure hands the failures back to the writer, at most
 * `rounds` times; then refuses with the last report, so nothing unverified is ever deployed. A writer that fails in
 * a repair round (its model unreachable, say) fails the run with the last report still in the error's data.
 * @throws {StudioError} stage `repair`, code `verification_failed`, with `report` and `attempts` in its data; or
 * the writer's error, with `round`, `report`, `attempts` and `failures` in its data after a first attempt.
 * @example const { source, report } = await writeAndVerify({ contract, writer })
 */
export async function writeAndVerify(p: WriteAndVerifyParameters): Promise<VerifiedHandler> {
  const rounds = p.rounds ?? DEFAULT_REPAIR_ROUNDS;
  const attempts: VerifyReport[] = [];
  let failures: VerifyFailure[] = [];
  let previous: string | undefined;
  for (let round = 0; round <= rounds; round++) {
    const source = await write(p.contract, p.writer, failures, previous).catch((error: unknown) => {
      if (error instanceof StudioError && attempts.length > 0)
        Object.assign(error.data, { round, report: attempts.at(-1), attempts: attempts.length, failures });
      throw error;
    });
    const report = await verifyHandler({ ...p.verify, contract: p.contract, source });
    attempts.push(report);
    p.onAttempt?.(round, report);
    if (report.passed) return { source, report, attempts };
    failures = failuresOf(report);
    previous = source;
  }
  const last = attempts.at(-1);
  const failed = last?.checks.filter((c) => !c.passed).map((c) => c.check) ?? [];
  throw new StudioError(
    "repair",
    "verification_failed",
    `the handler still fails verification after ${rounds} repair round${rounds === 1 ? "" : "s"} (${failed.join(", ")}); nothing was deployed`,
    { report: last, attempts: attempts.length, failures },
  );
}
