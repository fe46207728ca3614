import { stripVTControlCharacters } from "node:util";

/**
 * The first failing test named in a test run's output: mocha's `1) title`, or a Solidity test's `✘ name()`.
 * @example firstFailingTest("  1) refuses a second debit\n") // "refuses a second debit"
 */
export function firstFailingTest(output: string): string | undefined {
  const plain = stripVTControlCharacters(output);
  const match = /^\s*1\) (.+)$/m.exec(plain) ?? /^\s*(?:✘|✖|×)\s*(.+)$/m.exec(plain);
  return match?.[1]?.trim().replace(/:$/, "");
}
