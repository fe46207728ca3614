import { replaceOnce } from "./replaceOnce.ts";

/**
 * Ponder finds its port with `getNextAvailablePort` (utils/port.js): when the port asked for (`--port`) is taken, it
 * logs a warning and listens on the next free one. Nobody looks for the indexer there: the stack, the marketplace and
 * the facilitator keep asking INDEXER_PORT, where the other process answers. In a test run, a port taken that way
 * (by another suite's service, between the pick and Ponder's listen) left the marketplace reading that service's 404s
 * for seven minutes. Patched, Ponder stops with an error naming the port, so the start fails at once and says why.
 * @example const patched = refuseTakenPort(source)
 */
export function refuseTakenPort(source: string): string {
  return replaceOnce(source, {
    patch: "portInUse.ts",
    what: "getNextAvailablePort",
    original: [
      "                port += 1;",
      "                setTimeout(() => {",
      "                    server.listen(port, common.options.hostname);",
      "                }, 5);",
    ].join("\n"),
    replacement:
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a template literal in Ponder's code, not in ours
      "                reject(new Error(`port ${port} is taken by another process: free it, or choose another port (the indexer does not move to the next one)`));",
  });
}
