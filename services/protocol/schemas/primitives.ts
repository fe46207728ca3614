import type { Address, Hex } from "viem";
import { getAddress, maxUint256 } from "viem";
import { z } from "zod";
import { whenParsed } from "./whenParsed.ts";

const uintDigits = maxUint256.toString().length;

function uint256String(what: string) {
  return z
    .string()
    .max(uintDigits, `${what} does not fit uint256`)
    .regex(/^(0|[1-9][0-9]*)$/, `${what} must be a decimal string without sign, fraction or leading zeros`)
    .refine((value) => BigInt(value) <= maxUint256, { message: `${what} does not fit uint256`, ...whenParsed });
}

/** Base-unit amount: a canonical decimal string that fits uint256, never a JSON number. */
export const amountSchema = uint256String("amount");

/** A base-unit amount above zero (a price, a debit). */
export const positiveAmountSchema = amountSchema.refine((value) => BigInt(value) > 0n, {
  message: "amount must be positive",
  ...whenParsed,
});

/** ERC-8004 agent id: a canonical decimal string that fits uint256. */
export const agentIdSchema = uint256String("agentId");

/** Unix seconds inside signed structs: a canonical decimal string that fits uint256. */
export const unixSecondsSchema = uint256String("unix seconds");

/** Address: `0x` + 40 hex digits in any case, emitted EIP-55 checksummed. */
export const addressSchema = z
  .string()
  .regex(/^0x[0-9a-fA-F]{40}$/, "address must be 0x followed by 40 hex digits")
  .transform((value): Address => getAddress(value));

/** 32 bytes: `0x` + 64 hex digits in any case, emitted lowercase. */
export const bytes32Schema = z
  .string()
  .regex(/^0x[0-9a-fA-F]{64}$/, "must be 0x followed by 64 hex digits")
  .transform((value) => value.toLowerCase() as Hex);

/**
 * Resource id (bytes32). Any case is accepted and lowercased, so the same id read from a checksummed or
 * upper-case source compares equal; the emitted form is always the canonical lowercase one.
 */
export const resourceIdSchema = bytes32Schema;

/** Transaction hash: bytes32, emitted lowercase. */
export const txHashSchema = bytes32Schema;

/** Signature: even-length hex of 65 bytes (ECDSA) up to 8 KiB (ERC-1271 / ERC-6492 wallets), emitted lowercase. */
export const signatureSchema = z
  .string()
  .regex(/^0x(?:[0-9a-fA-F]{2}){65,8192}$/, "signature must be 0x followed by 65 to 8192 hex-encoded bytes")
  .transform((value) => value.toLowerCase() as Hex);

/** Score (reputation, uptime, health): a number in [0, 100]. */
export const scoreSchema = z.number().min(0).max(100);

/** ISO-8601 UTC timestamp such as `2026-01-01T00:00:00.000Z`. */
export const isoTimestampSchema = z.iso.datetime();

/** Absolute http(s) URL. */
export const httpUrlSchema = z.url({ protocol: /^https?$/ });

/** A string with at least one character. */
export const nonEmptyStringSchema = z.string().min(1);

/** Health of a resource: whether it passed verification, and its score in [0, 100]. */
export const healthSchema = z.strictObject({ verified: z.boolean(), score: scoreSchema });
