import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { decryptKeystore } from "./decryptKeystore.ts";
import { KeystoreError, WrongPasswordError } from "./keystoreError.ts";

/** A setting that holds one key (`FACILITATOR_KEY`) or a pool of keys (`RELAYER_KEYS`). */
export type KeySettingKind = "one" | "list";

/**
 * The environment with every key setting given by file replaced by its key, and what was wrong, by the name of the
 * key setting (a message that names the `_FILE` setting and the file).
 */
export type ReadKeySettingsReturnType = { env: Record<string, string | undefined>; problems: Record<string, string> };

function why(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === "ENOENT") return "no such file";
  if (code === "EACCES") return "permission denied";
  if (code === "EISDIR") return "is a directory";
  return code ?? (error as Error).message;
}

/** The keystore files a `_FILE` setting names: one path, or for a pool a comma-separated list of files or directories. */
function keystorePaths(name: string, value: string, kind: KeySettingKind): string[] {
  const entries = kind === "list" ? value.split(",").map((entry) => entry.trim()) : [value];
  return entries.flatMap((entry) => {
    let isDirectory: boolean;
    try {
      isDirectory = statSync(entry).isDirectory();
    } catch (error) {
      throw new KeystoreError(`${name}_FILE: cannot read ${entry} (${why(error)})`);
    }
    if (!isDirectory) return [entry];
    if (kind === "one") throw new KeystoreError(`${name}_FILE: ${entry} is a directory; name one keystore file`);
    const files = readdirSync(entry, { withFileTypes: true })
      .filter((file) => file.isFile() && !file.name.startsWith("."))
      .map((file) => join(entry, file.name))
      .sort();
    if (files.length === 0) throw new KeystoreError(`${name}_FILE: no keystore file in the directory ${entry}`);
    return files;
  });
}

function readPassword(name: string, path: string): string {
  try {
    return readFileSync(path, "utf8").replace(/\r?\n$/, "");
  } catch (error) {
    throw new KeystoreError(`${name}_PASSWORD_FILE: cannot read ${path} (${why(error)})`);
  }
}

function openKeystore(name: string, path: string, password: string): string {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new KeystoreError(`${name}_FILE: cannot read ${path} (${why(error)})`);
  }
  try {
    return decryptKeystore(text, password);
  } catch (error) {
    if (error instanceof WrongPasswordError)
      throw new KeystoreError(`${name}_FILE: ${path}: ${error.shortMessage}; check ${name}_PASSWORD_FILE`);
    if (error instanceof KeystoreError) throw new KeystoreError(`${name}_FILE: ${path}: ${error.shortMessage}`);
    throw error;
  }
}

function readKeySetting(
  env: Record<string, string | undefined>,
  name: string,
  kind: KeySettingKind,
): string | undefined {
  const file = env[`${name}_FILE`];
  const passwordFile = env[`${name}_PASSWORD_FILE`];
  if (file === undefined) {
    if (passwordFile !== undefined) throw new KeystoreError(`${name}_PASSWORD_FILE is set without ${name}_FILE`);
    return env[name];
  }
  if (env[name] !== undefined) throw new KeystoreError(`${name} and ${name}_FILE are both set: give the key one way`);
  if (passwordFile === undefined)
    throw new KeystoreError(`${name}_FILE needs ${name}_PASSWORD_FILE, a file holding the keystore's password`);
  const paths = keystorePaths(name, file, kind);
  const password = readPassword(name, passwordFile);
  return paths.map((path) => openKeystore(name, path, password)).join(",");
}

/**
 * Reads key settings the way every service does: each `NAME` may be raw hex (for local use) or an encrypted keystore
 * (Web3 Secret Storage v3) named by `NAME_FILE`, opened with the password in the file `NAME_PASSWORD_FILE` (its
 * content less a final line break). A pool (`list`) takes a comma-separated list of keystore files or directories
 * (every file in a directory, by name, dotfiles skipped), all opened with the one password. The returned environment
 * holds each key as raw hex under `NAME` and no longer the `_FILE` settings; problems name the setting and the file,
 * never a key or a password.
 * @example const { env, problems } = readKeySettings(process.env, { RELAYER_KEYS: "list", FACILITATOR_KEY: "one" })
 */
export function readKeySettings(
  env: Record<string, string | undefined>,
  settings: Record<string, KeySettingKind>,
): ReadKeySettingsReturnType {
  const out = { ...env };
  const problems: Record<string, string> = {};
  for (const [name, kind] of Object.entries(settings)) {
    try {
      const value = readKeySetting(env, name, kind);
      delete out[`${name}_FILE`];
      delete out[`${name}_PASSWORD_FILE`];
      if (value !== undefined) out[name] = value;
    } catch (error) {
      if (!(error instanceof KeystoreError)) throw error;
      problems[name] = error.shortMessage;
    }
  }
  return { env: out, problems };
}

/**
 * A key handed to a child process as raw hex, with the `_FILE` settings of the same name that it would otherwise
 * inherit from this process's environment removed (a child given both refuses to start).
 * @example spawn(cmd, { env: { ...process.env, ...keyEnv("RELAYER_KEYS", keys.join(",")) } })
 */
export function keyEnv(name: string, value: string | undefined): Record<string, string | undefined> {
  return { [name]: value, [`${name}_FILE`]: undefined, [`${name}_PASSWORD_FILE`]: undefined };
}
