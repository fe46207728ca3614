/**
 * Measures the gas of the escrow's payment paths on the embedded chain and writes docs/gas.md.
 *
 * Every input is fixed (accounts, nonces, validity windows, amounts), so the calldata, the storage touched and
 * therefore every number are the same on each run. Run with `npm run gas`.
 */
import { parseCommandLine } from "../services/stack/parseCommandLine.ts";

parseCommandLine(
  `usage: npm run gas

Measures the gas of the escrow's payment paths on the embedded chain, with fixed inputs, and writes docs/gas.md.`,
  {},
);

// What it runs (Hardhat and its chain) takes a second of CPU to load its imports: loaded after the command line, so
// that --help and a wrong option answer at once.
await import("./runGasReport.ts");
