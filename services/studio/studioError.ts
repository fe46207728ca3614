import { BaseError } from "../protocol/errors.ts";

/** The stages of the studio pipeline, in order. */
export const STUDIO_STAGES = ["specify", "write", "verify", "repair", "deploy", "publish", "self-test"] as const;

/** A stage of the studio pipeline. */
export type StudioStage = (typeof STUDIO_STAGES)[number];

const REPHRASE =
  'write one sentence that says what the endpoint takes and what it returns, e.g. "Return the SHA-256 hex digest of a text"';
const SANDBOX = "describe an endpoint that computes its answer from the request alone (no network, files, secrets)";
const STRONGER_MODEL =
  "run again, or use a stronger model (STUDIO_LLM_MODEL) or the catalog (unset STUDIO_LLM_PROVIDER)";
const STACK = "check that the stack runs (npm start) and that STACK_DIR points at its stack.json, then run again";

/** What the creator should do next after each failure, by code; `STAGE_NEXT` covers codes not listed. */
const CODE_NEXT: Record<string, string> = {
  empty_sentence: REPHRASE,
  sentence_too_long: REPHRASE,
  not_an_endpoint: REPHRASE,
  forbidden_network: SANDBOX,
  forbidden_secrets: SANDBOX,
  forbidden_files: SANDBOX,
  forbidden_mining: SANDBOX,
  moderation_refused: "rephrase without the blocked term; the marketplace would refuse the listing",
  no_match:
    "rephrase closer to one of the closest recipes, or configure a model (STUDIO_LLM_PROVIDER, see services/studio/README.md)",
  invalid_contract: STRONGER_MODEL,
  writer_failed: STRONGER_MODEL,
  not_a_module: STRONGER_MODEL,
  source_too_large: STRONGER_MODEL,
  verification_failed:
    "read the failures (--dry-run writes them to report.json); then rephrase the sentence, raise --rounds, or use a stronger model",
  host_unreachable: STACK,
  deploy_refused: "read the host's reason above; a wrong hostToken in stack.json is the usual one",
  deploy_replaced:
    "the slug was yours already: its new handler is live on the host unverified; run the studio again with another slug, or deploy the earlier bundle again",
  marketplace_unreachable: STACK,
  publish_refused: "read the marketplace's reason above (moderation, price, bond, probe), fix it, then run again",
  identity_failed: STACK,
  payment_failed:
    "check that the paying buyer (STUDIO_BUYER_KEY, or the stack's first demo buyer) has an escrow balance and that the facilitator runs, then run again",
  wrong_answer: "review the handler with --dry-run; the live answer differed from the verified one",
  bad_receipt: STACK,
  no_debit: STACK,
};

/** The next step by stage, for codes without their own. */
const STAGE_NEXT: Record<StudioStage, string> = {
  specify: REPHRASE,
  write: STRONGER_MODEL,
  verify: STRONGER_MODEL,
  repair: CODE_NEXT.verification_failed ?? STRONGER_MODEL,
  deploy: STACK,
  publish: STACK,
  "self-test": STACK,
};

/**
 * A stage refused or failed: the stage, a snake_case code, a sentence saying what happened, the failure's `data`
 * (answered as `details` in JSON), and `next`: what the creator should do about it (given, or the studio's advice
 * for the code or stage).
 * @example throw new StudioError("specify", "forbidden_network", "the sandbox has no outbound network")
 */
export class StudioError extends BaseError {
  override name = "StudioError";
  readonly stage: StudioStage;
  readonly code: string;
  /** What the failure carries: the closest recipes, the repair rounds and last report, what was undone. */
  readonly data: Record<string, unknown>;
  readonly next: string;
  constructor(stage: StudioStage, code: string, message: string, data: Record<string, unknown> = {}, next?: string) {
    super(message);
    this.stage = stage;
    this.code = code;
    this.data = data;
    this.next = next ?? CODE_NEXT[code] ?? STAGE_NEXT[stage];
  }
}
