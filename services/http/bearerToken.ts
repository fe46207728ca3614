import { timingSafeEqual } from "node:crypto";
import type Koa from "koa";
import { HttpError } from "./httpError.ts";

const BEARER = /^bearer +(\S+) *$/i;

/**
 * The token of an `Authorization: Bearer <token>` header, the scheme in any case (RFC 9110 compares auth schemes
 * case-insensitively); undefined for any other header.
 * @example bearerTokenOf("bearer abc") // "abc"
 */
export function bearerTokenOf(header: string | undefined): string | undefined {
  return BEARER.exec(header ?? "")?.[1];
}

/**
 * Fail-closed bearer authorization: without a configured `token` every request is refused (401 `disabled`); a missing
 * or wrong token is 401 `refused`, compared in constant time.
 * @example router.post("/deployments", requireBearerToken(config.HOST_TOKEN, { disabled: "deploys are disabled", refused: "a valid bearer token is required" }), deploy)
 */
export function requireBearerToken(
  token: string | undefined,
  messages: { disabled: string; refused: string },
): Koa.Middleware {
  const expected = token ? Buffer.from(token) : undefined;
  return async (koa, next) => {
    if (!expected) throw new HttpError(401, "unauthorized", messages.disabled);
    const given = Buffer.from(bearerTokenOf(koa.get("authorization")) ?? "");
    if (given.length !== expected.length || !timingSafeEqual(given, expected))
      throw new HttpError(401, "unauthorized", messages.refused);
    await next();
  };
}
