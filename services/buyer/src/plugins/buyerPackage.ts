import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** Name of the published buyer package. */
export const BUYER_PACKAGE_NAME = "service-buyer";

/** Its bin that starts the stdio MCP server. */
export const MCP_BIN = "service-buyer-mcp";

/** The buyer package this generator belongs to: its folder, version and the built MCP entry. */
export type BuyerPackage = { root: string; name: string; version: string; mcpEntry: string };

/**
 * Finds the buyer package this code runs from (its source under `services/buyer/src`, its bundle under
 * `services/buyer/dist`, or an installed copy) by walking up to the `package.json` named `service-buyer`.
 * @throws {Error} when there is none above this file: a broken install.
 * @example const { version, mcpEntry } = buyerPackage()
 */
export function buyerPackage(from = dirname(fileURLToPath(import.meta.url))): BuyerPackage {
  for (let dir = resolve(from); ; dir = dirname(dir)) {
    const file = join(dir, "package.json");
    if (existsSync(file)) {
      const pkg = JSON.parse(readFileSync(file, "utf8")) as {
        name?: string;
        version?: string;
        bin?: Record<string, string>;
      };
      const bin = pkg.bin?.[MCP_BIN];
      if (pkg.name === BUYER_PACKAGE_NAME && pkg.version && bin)
        return { root: dir, name: pkg.name, version: pkg.version, mcpEntry: join(dir, bin) };
    }
    if (dirname(dir) === dir) throw new Error(`no ${BUYER_PACKAGE_NAME} package.json above ${from}`);
  }
}
