import { closeSync, openSync, readFileSync, writeSync } from "node:fs";
import type { Hex } from "viem";
import { generatePrivateKey, privateKeyToAddress } from "viem/accounts";
import { parseCommandLine, usageError } from "../stack/parseCommandLine.ts";
import { encryptKeystore } from "./encryptKeystore.ts";

const USAGE = `usage: npm run keystore -- --out <file> --password-file <file> [--import]

Writes an encrypted keystore (Web3 Secret Storage v3: scrypt and AES-128-CTR, as geth writes it; geth, Foundry and
every service here read it) to <file>, readable by its owner only, and prints its address. It holds a new random key,
or with --import the key read from standard input (0x followed by 64 hex digits; never from the command line, so it
stays out of the shell's history). An existing file is never overwritten. Give it to a service as NAME_FILE with the
password file as NAME_PASSWORD_FILE (docs/operations.md, "Keys").

  --out <file>            where to write the keystore
  --password-file <file>  the password: the file's content less a final line break; not empty
  --import                encrypt the key on standard input instead of a new one`;

const { values } = parseCommandLine(USAGE, {
  options: {
    out: { type: "string" },
    "password-file": { type: "string" },
    import: { type: "boolean", default: false },
  },
});
if (!values.out) usageError(USAGE, "--out is required");
if (!values["password-file"]) usageError(USAGE, "--password-file is required");

function fail(problem: string): never {
  process.stderr.write(`keystore: ${problem}\n`);
  process.exit(1);
}

let password: string;
try {
  password = readFileSync(values["password-file"], "utf8").replace(/\r?\n$/, "");
} catch (error) {
  fail(`cannot read the password file ${values["password-file"]} (${(error as NodeJS.ErrnoException).code})`);
}
if (password === "") fail(`the password file ${values["password-file"]} is empty`);

let key: Hex = generatePrivateKey();
if (values.import) {
  const given = readFileSync(0, "utf8").trim();
  if (!/^0x[0-9a-fA-F]{64}$/.test(given)) fail("standard input is not a private key (0x followed by 64 hex digits)");
  key = given as Hex;
  try {
    privateKeyToAddress(key);
  } catch {
    fail("standard input is not a valid secp256k1 private key");
  }
}

const keystore = `${JSON.stringify(encryptKeystore(key, password))}\n`;
let fd: number;
try {
  fd = openSync(values.out, "wx", 0o600);
} catch (error) {
  const code = (error as NodeJS.ErrnoException).code;
  fail(`cannot write ${values.out} (${code === "EEXIST" ? "it exists; a keystore is never overwritten" : code})`);
}
writeSync(fd, keystore);
closeSync(fd);
process.stdout.write(`${privateKeyToAddress(key)} ${values.out}\n`);
