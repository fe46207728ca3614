import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import type { Address } from "viem";
import { SetupError } from "./setupError.ts";

/** Where the studio deploys and publishes: the stack's URLs, tokens and contracts (the fields of `stack.json`). */
export type StudioTarget = {
  rpcUrl: string;
  hostUrl: string;
  hostToken: string;
  marketplaceUrl: string;
  publishToken: string;
  facilitatorUrl: string;
  contracts: { token: Address; escrow: Address; registry: Address };
};

/** A stack as `npm start` describes it in `stack.json`: the target, plus the demo buyers' development keys. */
export type StackFile = StudioTarget & {
  studioUrl?: string;
  studioToken?: string;
  buyers: { address: Address; privateKey: `0x${string}` }[];
};

/**
 * Reads `{STACK_DIR}/stack.json` (default `.stack`), written by `npm start`.
 * @throws {SetupError} `no_stack`, naming the file and how to start the stack, when it is missing.
 * @example const stack = readStackFile(process.env.STACK_DIR)
 */
export function readStackFile(stackDir = ".stack"): StackFile {
  const file = resolve(stackDir, "stack.json");
  try {
    return JSON.parse(readFileSync(file, "utf8")) as StackFile;
  } catch {
    throw new SetupError(
      "no_stack",
      `no ${file}`,
      "start the system first with `npm start` (in another terminal), or set STACK_DIR to its folder",
    );
  }
}
