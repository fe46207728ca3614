import { createInterface } from "node:readline/promises";
import type { Readable, Writable } from "node:stream";

/**
 * Asks a yes/no question ending in "[y/N]" on a terminal and answers whether the creator said yes (`y` or `yes`);
 * anything else, or the end of input, is no.
 * @example if (await askYesNo(process.stdin, process.stderr, "Publish? [y/N] ")) await launchEndpoint(…)
 */
export async function askYesNo(input: Readable, output: Writable, question: string): Promise<boolean> {
  const lines = createInterface({ input, output });
  const closed = new Promise<string>((resolve) => lines.once("close", () => resolve("")));
  try {
    const answer = await Promise.race([lines.question(question), closed]);
    return /^\s*y(es)?\s*$/i.test(answer);
  } finally {
    lines.close();
  }
}
