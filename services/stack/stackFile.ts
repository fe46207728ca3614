import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Address, Hex } from "viem";
import { z } from "zod";
import { BaseError } from "../protocol/errors.ts";
import { httpUrlSchema } from "../protocol/schemas/primitives.ts";

const address = z
  .string()
  .regex(/^0x[0-9a-fA-F]{40}$/, "must be 0x followed by 40 hex digits")
  .transform((value) => value as Address);
const bytes32 = z
  .string()
  .regex(/^0x[0-9a-fA-F]{64}$/, "must be 0x followed by 64 hex digits")
  .transform((value) => value as Hex);

/** `stack.json`, which `npm start` writes once every part is ready: how to reach the stack and what it holds. */
export const stackFileSchema = z.object({
  chainId: z.number().int(),
  rpcUrl: httpUrlSchema,
  marketplaceUrl: httpUrlSchema,
  facilitatorUrl: httpUrlSchema,
  hostUrl: httpUrlSchema,
  indexerUrl: httpUrlSchema,
  /** `npm start -- --postgres`: the stack's own PostgreSQL (trust auth on loopback), for more instances to share. */
  postgresUrl: z.string().optional(),
  /** The studio's HTTP service and its bearer token; absent when the studio was not started. */
  studioUrl: httpUrlSchema.optional(),
  studioToken: z.string().optional(),
  publishToken: z.string(),
  hostToken: z.string(),
  contracts: z.object({ token: address, identity: address, registry: address, escrow: address }),
  /** The demo buyers: local development keys, on the embedded chain only (none in external mode). */
  buyers: z.array(z.object({ address, privateKey: bytes32, label: z.string().optional() })),
  /** The sample handlers as published. */
  resources: z.array(
    z.object({
      slug: z.string(),
      resourceId: bytes32,
      agentId: z.string(),
      resourceUrl: z.string(),
      cardUrl: z.string(),
    }),
  ),
});

/** A parsed `stack.json`. */
export type StackFile = z.output<typeof stackFileSchema>;

/** Why `stack.json` could not be read: there is none (the stack is not running) or it is not a stack file. */
export type StackFileErrorReason = "missing" | "invalid";

/** `stack.json` is missing, unreadable or does not match {@link stackFileSchema}. */
export class StackFileError extends BaseError {
  override name = "StackFileError";
  readonly reason: StackFileErrorReason;
  readonly file: string;

  constructor(reason: StackFileErrorReason, file: string, cause?: unknown) {
    super(reason === "missing" ? `no ${file}` : `${file} is not a stack file`, {
      details: cause instanceof Error ? cause.message : undefined,
      cause,
    });
    this.reason = reason;
    this.file = file;
  }
}

/** The errors {@link readStackFile} throws. */
export type ReadStackFileErrorType = StackFileError;

/**
 * The path of `stack.json` in a stack directory (`STACK_DIR`, default `.stack`).
 * @example stackFilePath(process.env.STACK_DIR) // "/repo/.stack/stack.json"
 */
export function stackFilePath(stackDir = ".stack"): string {
  return resolve(stackDir, "stack.json");
}

/**
 * Reads and validates `{stackDir}/stack.json`, written by `npm start`.
 * @throws {StackFileError} `missing` when there is no readable file, `invalid` when it is not a stack file.
 * @example const stack = readStackFile(process.env.STACK_DIR ?? ".stack")
 */
export function readStackFile(stackDir = ".stack"): StackFile {
  const file = stackFilePath(stackDir);
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    throw new StackFileError("missing", file, error);
  }
  try {
    return stackFileSchema.parse(JSON.parse(text));
  } catch (error) {
    throw new StackFileError("invalid", file, error);
  }
}

/**
 * Validates a stack description and writes it as `{stackDir}/stack.json`, readable by its owner only (it holds
 * tokens and development keys). Written beside it and renamed into place, so a reader that sees the file (a script
 * waiting for the stack, a test) never reads half of it.
 * @example writeStackFile(stackDir, { chainId: 5042002, rpcUrl, ... })
 */
export function writeStackFile(stackDir: string, stack: z.input<typeof stackFileSchema>): void {
  stackFileSchema.parse(stack);
  const file = join(stackDir, "stack.json");
  writeFileSync(`${file}.partial`, `${JSON.stringify(stack, null, 2)}\n`, { mode: 0o600 });
  renameSync(`${file}.partial`, file);
}
