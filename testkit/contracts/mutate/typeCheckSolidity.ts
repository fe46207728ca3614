import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";

type Solc = { compile: (input: string, callbacks: { import: (path: string) => unknown }) => string };
type SolcOutput = { errors?: Array<{ severity: string; formattedMessage: string }> };

// The compiler Hardhat builds with (hardhat.config.ts): the `solc` npm package.
const solc = createRequire(import.meta.url)("solc") as Solc;

/**
 * The compiler's errors for `sources` (path -> content) after parsing and type checking only, without code
 * generation: under a second for a contract once the compiler is loaded, where a build through the IR pipeline takes
 * a minute. Imports resolve against `root` and its node_modules. An empty array: it type-checks.
 * @example typeCheckSolidity({ "contracts/PaymentEscrow.sol": mutated }, root)
 */
export function typeCheckSolidity(sources: Record<string, string>, root: string): string[] {
  const input = {
    language: "Solidity",
    sources: Object.fromEntries(Object.entries(sources).map(([path, content]) => [path, { content }])),
    settings: { outputSelection: { "*": { "": ["ast"] } } },
  };
  const resolve = (path: string) => {
    for (const base of [root, join(root, "node_modules")]) {
      const file = join(base, path);
      if (existsSync(file)) return { contents: readFileSync(file, "utf8") };
    }
    return { error: `not found: ${path}` };
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input), { import: resolve })) as SolcOutput;
  return (output.errors ?? []).filter((e) => e.severity === "error").map((e) => e.formattedMessage);
}
