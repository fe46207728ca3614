/** Where the buyer MCP server writes its diagnostic lines: stderr by default, since stdout carries the protocol. */
export type ServerLog = (line: string) => void;

/**
 * Writes one line to the process's stderr.
 * @example writeStderr("service-buyer: demo started")
 */
export const writeStderr: ServerLog = (line) => {
  process.stderr.write(`${line}\n`);
};
