import { BaseError } from "../protocol/errors.ts";

/**
 * Why the studio cannot start a run: its settings or its command line's values, its stack, a key it needs, or the
 * reviewed bundle `--from` names (missing, or edited into one that does not validate).
 */
export type SetupErrorCode = "invalid_settings" | "no_stack" | "missing_key" | "no_bundle" | "invalid_bundle";

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
