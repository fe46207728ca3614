/** The most lines of a failed script's output that the closing recap repeats. */
const RECAP_MAX_LINES = 150;

/**
 * What the closing recap repeats of a failed script's output: from mocha's last "N failing" on (its list of failures),
 * or the output's end when there is none; at most RECAP_MAX_LINES lines, the last ones.
 */
export function failureRecap(output: string): string {
  const lines = output.split("\n");
  const failing = lines.findLastIndex((line) => /^\s*\d+ failing\b/.test(line));
  const from = failing >= 0 ? failing : lines.length - RECAP_MAX_LINES;
  return lines.slice(Math.max(from, lines.length - RECAP_MAX_LINES, 0)).join("\n");
}
