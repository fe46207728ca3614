/** How a mutant ended: see docs/audit/mutation.md, "How a mutant is judged". */
export type Status = "killed" | "survived" | "equivalent" | "not compiling" | "timed out";
/** One mutant's result; `key` is `mutant id#contract hash#tests hash`, `by` the step and test that killed it. */
export type Result = { id: string; status: Status; by?: string; seconds: number; key: string };
/** Every kept result, by key. */
export type Report = { results: Record<string, Result> };
/** The tests a mutant meets: their hash, and their text (where a killing test's title is looked up). */
export type Tests = { hash: string; text: string };

/**
 * The earlier result that still holds for mutant `id` of a contract whose source hashes to `contractHash`: one run on
 * this contract and these tests; or, when the tests changed since, a kill whose test is still there (tests added
 * since cannot revive it; a changed or removed killing test can, so its title must still be in the tests' text).
 */
export function reusableResult(report: Report, id: string, contractHash: string, tests: Tests): Result | undefined {
  let kept: Result | undefined;
  for (const result of Object.values(report.results)) {
    const { mutantId, contract, testsHash } = partsOfKey(result.key);
    if (mutantId !== id || contract !== contractHash) continue;
    if (testsHash === tests.hash) return result;
    // `contract tests: <title>`, or `Solidity tests: <name>() (runs: …)`.
    const title = result.by?.replace(/^[^:]+: /, "").replace(/ \(runs: [^)]*\)$/, "");
    if (result.status === "killed" && title && tests.text.includes(title)) kept = result;
  }
  return kept;
}

/** A result's key is `mutant id#contract hash#tests hash` (the id itself may hold `#` in a string literal). */
export function partsOfKey(key: string): { mutantId: string; contract: string; testsHash: string } {
  const testsAt = key.lastIndexOf("#");
  const contractAt = key.lastIndexOf("#", testsAt - 1);
  return {
    mutantId: key.slice(0, contractAt),
    contract: key.slice(contractAt + 1, testsAt),
    testsHash: key.slice(testsAt + 1),
  };
}
