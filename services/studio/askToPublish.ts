import { createInterface } from "node:readline/promises";
import type { Readable, Writable } from "node:stream";

/**
 * Asks "Publish? [y/N]" on a terminal and answers whether the creator said yes (`y` or `yes`); anything else, or the
 * end of input, is no.
 * @example if (await askToPublish(process.stdin, process.stderr)) await launchEndpoint(…)
 */
export async function askToPublish(input: Readable, output: Writable): Promise<boolean> {
  const lines = createInterface({ input, output });
  const closed = new Promise<string>((resolve) => lines.once("close", () => resolve("")));
  try {
    const answer = await Promise.race([lines.question("Publish? [y/N] "), closed]);
    return /^\s*y(es)?\s*$/i.test(answer);
  } finally {
    lines.close();
  }
}
