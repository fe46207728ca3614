/** An input the generator left out, and why: printed as a warning, listed in the `--json` summary. */
export type Skipped = { source: string; reason: string };
