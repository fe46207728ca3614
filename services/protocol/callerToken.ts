import { createHmac, timingSafeEqual } from "node:crypto";

/** Why a caller token was refused. */
export type CallerTokenFailure = "missing" | "malformed" | "bad_signature" | "expired" | "wrong_resource";

const header = base64url(JSON.stringify({ alg: "HS256", typ: "JWT" }));

function base64url(text: string | Buffer): string {
  return Buffer.from(text).toString("base64url");
}

function sign(input: string, secret: string): Buffer {
  return createHmac("sha256", secret).update(input).digest();
}

/**
 * Issues an HS256 caller token bound to one resource, valid for `ttlSeconds`.
 * @example signCallerToken({ resourceId, secret, ttlSeconds: 3600 })
 */
export function signCallerToken({
  resourceId,
  secret,
  ttlSeconds,
  now = Math.floor(Date.now() / 1000),
}: {
  resourceId: string;
  secret: string;
  ttlSeconds: number;
  now?: number;
}): string {
  const payload = base64url(JSON.stringify({ resourceId: resourceId.toLowerCase(), exp: now + ttlSeconds }));
  return `${header}.${payload}.${sign(`${header}.${payload}`, secret).toString("base64url")}`;
}

/**
 * Checks an HS256 caller token: signature, expiry and the resource it is bound to. Only HS256 is accepted.
 * @example verifyCallerToken({ token, secret, resourceId }) // { ok: true } or { ok: false, reason: 'expired' }
 */
export function verifyCallerToken({
  token,
  secret,
  resourceId,
  now = Math.floor(Date.now() / 1000),
}: {
  token: string | undefined;
  secret: string;
  resourceId: string;
  now?: number;
}): { ok: true } | { ok: false; reason: CallerTokenFailure } {
  if (!token) return { ok: false, reason: "missing" };
  const parts = token.split(".");
  if (parts.length !== 3) return { ok: false, reason: "malformed" };
  const [head, body, signature] = parts as [string, string, string];
  let claims: { resourceId?: unknown; exp?: unknown };
  try {
    const decodedHeader = JSON.parse(Buffer.from(head, "base64url").toString("utf8")) as { alg?: unknown };
    if (decodedHeader.alg !== "HS256") return { ok: false, reason: "malformed" };
    claims = JSON.parse(Buffer.from(body, "base64url").toString("utf8")) as typeof claims;
  } catch {
    return { ok: false, reason: "malformed" };
  }
  const expected = sign(`${head}.${body}`, secret);
  const given = Buffer.from(signature, "base64url");
  if (given.length !== expected.length || !timingSafeEqual(given, expected))
    return { ok: false, reason: "bad_signature" };
  if (typeof claims.exp !== "number" || claims.exp <= now) return { ok: false, reason: "expired" };
  if (typeof claims.resourceId !== "string" || claims.resourceId.toLowerCase() !== resourceId.toLowerCase()) {
    return { ok: false, reason: "wrong_resource" };
  }
  return { ok: true };
}
