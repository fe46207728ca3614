import { readFileSync } from "node:fs";

/**
 * The mutants docs/audit/mutation.md lists as equivalent (no test can kill them: they change no behaviour), by id,
 * with the reason given: each row of its tables whose first cell is a mutant id (`File.sol:line:column …`) in
 * backquotes (a `|` in it escaped).
 * @example equivalentMutants(readFileSync("docs/audit/mutation.md", "utf8")).get(id) // "the check above already …"
 */
export function equivalentMutants(markdown: string): Map<string, string> {
  const listed = new Map<string, string>();
  for (const line of markdown.split("\n")) {
    const row = /^\|\s*`([^`]+\.sol:\d+:\d+ [^`]+)`\s*\|(.*)\|\s*$/.exec(line);
    // A `|` inside a table cell is written `\|`, also in code.
    if (row?.[1] && row[2] !== undefined) listed.set(row[1].replaceAll("\\|", "|"), row[2].trim());
  }
  return listed;
}

/** The equivalent mutants listed in `path`, none when the file does not exist. */
export function readEquivalentMutants(path: string): Map<string, string> {
  try {
    return equivalentMutants(readFileSync(path, "utf8"));
  } catch {
    return new Map();
  }
}
