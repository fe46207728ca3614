/** The stages of the studio pipeline, in order. */
export const STUDIO_STAGES = ["specify", "write", "verify", "repair", "deploy", "publish", "self-test"] as const;

/** A stage of the studio pipeline. */
export type StudioStage = (typeof STUDIO_STAGES)[number];

/**
 * A stage refused or failed: the stage, a snake_case code and a sentence a creator can act on, plus details.
 * @example throw new StudioError("specify", "forbidden", "the sandbox has no outbound network")
 */
export class StudioError extends Error {
  override name = "StudioError";
  readonly stage: StudioStage;
  readonly code: string;
  readonly details: Record<string, unknown>;
  constructor(stage: StudioStage, code: string, message: string, details: Record<string, unknown> = {}) {
    super(message);
    this.stage = stage;
    this.code = code;
    this.details = details;
  }
}
