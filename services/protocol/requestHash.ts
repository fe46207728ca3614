import { createHash } from "node:crypto";
import type { Hex } from "viem";

/**
 * The hash a paid request is bound to: SHA-256 of the method in upper case, a space, the path the gate serves, a line
 * feed, then the body bytes exactly as received (no canonical JSON: the same payment replays only to the same bytes,
 * as an idempotency key does to the same parameters). The gate sends it with `/verify`; the facilitator stores it with
 * the reservation and answers it in `GET /results`, and a replay of the payment for another request is refused.
 * @example requestHash({ method: "POST", path: "/call", body: Buffer.from('{"text":"hi"}') }) // '0x…' (32 bytes)
 */
export function requestHash({ method, path, body }: { method: string; path: string; body: Uint8Array }): Hex {
  return `0x${createHash("sha256").update(`${method.toUpperCase()} ${path}\n`).update(body).digest("hex")}`;
}
