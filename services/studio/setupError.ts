import { BaseError } from "../protocol/errors.ts";

/** Why the studio cannot start a run: its settings, its stack, or a key it needs. */
export type SetupErrorCode = "invalid_settings" | "no_stack" | "missing_key";

/**
 * The studio cannot start: a setting is invalid or missing, or the stack is not running; `next` says how to fix it.
 * @example throw new SetupError("no_stack", "no .stack/stack.json", "start the system first with npm start")
 */
export class SetupError extends BaseError {
  override name = "SetupError";
  readonly code: SetupErrorCode;
  readonly next: string;
  constructor(code: SetupErrorCode, message: string, next: string) {
    super(message);
    this.code = code;
    this.next = next;
  }
}
