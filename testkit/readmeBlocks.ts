import { readFileSync } from "node:fs";

/** One fenced block of a Markdown file: its info string (`sh`, `json`) and its text. */
export type ReadmeBlock = { lang: string; text: string };

/**
 * The fenced blocks of the section of `file` headed `heading` (a `## ` heading, up to the next one), in order, so
 * that a test can run what a README tells a reader to run and the two cannot drift apart.
 * @example const blocks = readmeBlocks("services/buyer/README.md", "Walkthrough: from nothing to a paid call and a withdrawal")
 */
export function readmeBlocks(file: string, heading: string): ReadmeBlock[] {
  const text = readFileSync(file, "utf8");
  const start = text.indexOf(`\n## ${heading}\n`);
  if (start < 0) throw new Error(`${file} has no section "## ${heading}"`);
  const rest = text.slice(start + heading.length + 5);
  const end = rest.search(/^## /m);
  const section = end < 0 ? rest : rest.slice(0, end);
  return [...section.matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)].map((m) => ({ lang: m[1] ?? "", text: m[2] ?? "" }));
}
