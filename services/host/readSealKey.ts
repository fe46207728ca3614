import { randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { HostConfigError } from "./loadHostConfig.ts";

/** The file in `DATA_DIR` holding the seal key of a host given no `HOST_SEAL_SECRET`. */
export const SEAL_KEY_FILE = "seal.key";

/**
 * The key that seals the host's stored deployments (see `deploymentSeal`): `HOST_SEAL_SECRET` when set (every instance
 * sharing a database needs the same one), else the key kept in `{dataDir}/seal.key`, created (32 random bytes, mode
 * 0600) on first start.
 * @throws {HostConfigError} when that file holds something else.
 * @example const key = readSealKey({ secret: config.HOST_SEAL_SECRET, dataDir: config.DATA_DIR })
 */
export function readSealKey(p: { secret?: string | undefined; dataDir: string }): Buffer {
  if (p.secret) return Buffer.from(p.secret, "utf8");
  const file = join(p.dataDir, SEAL_KEY_FILE);
  mkdirSync(p.dataDir, { recursive: true });
  try {
    writeFileSync(file, randomBytes(32).toString("hex"), { mode: 0o600, flag: "wx" });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  }
  const key = readFileSync(file, "utf8").trim();
  if (!/^[0-9a-f]{64}$/.test(key)) throw new HostConfigError(`${file} does not hold a seal key (64 hex digits)`);
  return Buffer.from(key, "hex");
}
