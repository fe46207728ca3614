import { BaseError } from "../../protocol/errors.ts";

/**
 * Why a model provider gave up: `refusal`, `timeout` (the stage's deadline passed), `unreachable` (no connection),
 * `interrupted` (the connection closed while the answer was read), `http_<status>`, `truncated` (the answer hit
 * `max_tokens`) or `malformed` (no valid JSON answer).
 */
export type ProviderErrorCode =
  | "refusal"
  | "timeout"
  | "unreachable"
  | "interrupted"
  | "truncated"
  | "malformed"
  | `http_${number}`;

/** What a provider error carries besides its message: where, the HTTP status, and what the user should do next. */
export type ProviderErrorParameters = { url: string; status?: number; next: string; cause?: unknown };

/**
 * A model provider failed for good: the code, a message that names the URL (never the key), and the next step.
 * @example throw new ProviderError("unreachable", "connection refused by 127.0.0.1:8080", { url, next: "start the server" })
 */
export class ProviderError extends BaseError {
  override name = "ProviderError";
  readonly code: ProviderErrorCode;
  readonly url: string;
  readonly status: number | undefined;
  readonly next: string;
  constructor(code: ProviderErrorCode, message: string, p: ProviderErrorParameters) {
    super(message, { cause: p.cause });
    this.code = code;
    this.url = p.url;
    this.status = p.status;
    this.next = p.next;
  }
}
