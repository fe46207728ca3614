/**
 * Lines of a Solidity source: `sloc`, those with code once comments and blank lines are gone; `nsloc` (normalized),
 * the same with a statement or declaration the formatter spread over several lines counted once (a line ends at `;`,
 * `{` or `}`; in an assembly block every line is a statement).
 */
export type SolidityLines = { sloc: number; nsloc: number };

/**
 * Counts a Solidity source's lines of code (comments, NatSpec and blank lines left out; strings kept whole).
 * @example countSolidityLines("// x\ncontract A {\n  function f(\n    uint a\n  ) external {}\n}\n") // { sloc: 5, nsloc: 3 }
 */
export function countSolidityLines(source: string): SolidityLines {
  const lines = stripComments(source)
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "");
  let nsloc = 0;
  let open = false;
  let assemblyDepth = 0;
  for (const line of lines) {
    if (assemblyDepth > 0) {
      // Yul has no semicolons: inside an assembly block each line is a statement.
      nsloc += 1;
      assemblyDepth += count(line, "{") - count(line, "}");
      continue;
    }
    if (/^assembly\b.*\{$/.test(line)) assemblyDepth = 1;
    open = !/[;{}]$/.test(line);
    if (!open) nsloc += 1;
  }
  return { sloc: lines.length, nsloc: nsloc + (open ? 1 : 0) };
}

function count(line: string, char: string): number {
  return line.split(char).length - 1;
}

/** The source with every comment replaced by nothing (newlines inside block comments kept, so lines stay lines). */
function stripComments(source: string): string {
  let out = "";
  let i = 0;
  while (i < source.length) {
    const two = source.slice(i, i + 2);
    const char = source[i] as string;
    if (two === "//") {
      while (i < source.length && source[i] !== "\n") i += 1;
    } else if (two === "/*") {
      const end = source.indexOf("*/", i + 2);
      const stop = end === -1 ? source.length : end + 2;
      out += source.slice(i, stop).replace(/[^\n]/g, "");
      i = stop;
    } else if (char === '"' || char === "'") {
      let j = i + 1;
      while (j < source.length && source[j] !== char && source[j] !== "\n") j += source[j] === "\\" ? 2 : 1;
      out += source.slice(i, j + 1);
      i = j + 1;
    } else {
      out += char;
      i += 1;
    }
  }
  return out;
}
