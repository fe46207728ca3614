import { existsSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";

/** One line describing the machine a benchmark ran on. */
export function machineLine(): string {
  return `${os.cpus().length} × ${os.cpus()[0]?.model ?? "cpu"}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}`;
}

/**
 * Replaces (or appends) one section of docs/benchmarks.md between `<!-- name:begin -->` and `<!-- name:end -->`,
 * so that each benchmark script owns its section and reruns never touch the others.
 * @example writeBenchSection("facilitator", markdown)
 */
export function writeBenchSection(
  name: string,
  markdown: string,
  file = new URL("../docs/benchmarks.md", import.meta.url),
): void {
  const begin = `<!-- ${name}:begin -->`;
  const end = `<!-- ${name}:end -->`;
  const block = `${begin}\n${markdown.trim()}\n${end}`;
  let text = existsSync(file)
    ? readFileSync(file, "utf8")
    : "# Benchmarks\n\nEvery figure below was produced by the command named beside it, on the machine it names.\n";
  const start = text.indexOf(begin);
  const stop = text.indexOf(end);
  text =
    start >= 0 && stop > start
      ? text.slice(0, start) + block + text.slice(stop + end.length)
      : `${text.trimEnd()}\n\n${block}\n`;
  writeFileSync(file, text);
}
