import { randomUUID } from "node:crypto";
import type { Address, Hex } from "viem";
import type { Bundle, StudioEvent } from "../createEndpoint.ts";
import type { PublishTerms } from "../publish.ts";
import { SIGNATURE_LIFETIME_SECONDS } from "../publish.ts";
import type { StudioStage } from "../studioError.ts";

/** Where a draft stands. */
export type DraftStatus = "drafting" | "verified" | "failed" | "publishing" | "listed";

/** One sentence's way through the studio, as the HTTP service keeps it. */
export type Draft = {
  id: string;
  sentence: string;
  creator: Address;
  createdAt: string;
  status: DraftStatus;
  stage: StudioStage | "undo" | undefined;
  /** When a resting draft (verified, failed, listed) is forgotten; unset while the studio works on it. */
  expiresAt: string | undefined;
  events: (StudioEvent & { at: string })[];
  bundle?: Bundle;
  resourceId?: Hex;
  terms?: PublishTerms;
  deactivation?: Record<string, unknown>;
  error?: { stage: string; code: string; message: string; next: string; details: Record<string, unknown> };
  result?: Record<string, unknown>;
};

/**
 * In-memory drafts with progress listeners; resting drafts expire, and the oldest resting ones are dropped beyond
 * `limit`.
 */
export type DraftStore = {
  /**
   * A new draft, drafting.
   * @throws {DraftsBusyError} when `working` drafts are being worked on already, or `limit` drafts are kept and none
   * rests.
   */
  create(sentence: string, creator: Address): Draft;
  /** The draft, or undefined when it never existed or has expired (`expired` tells which). */
  get(id: string): Draft | undefined;
  /** Whether `id` named a draft that expired (remembered for the last `limit` expired drafts). */
  expired(id: string): boolean;
  emit(draft: Draft, event: StudioEvent): void;
  setStatus(draft: Draft, status: DraftStatus): void;
  subscribe(draft: Draft, listener: (kind: "progress" | "state", data: unknown) => void): () => void;
};

/** How long a verified, failed or listed draft is kept by default: half the creator's signature lifetime. */
export const DRAFT_TTL_MS = (SIGNATURE_LIFETIME_SECONDS * 1000) / 2;

/** Drafts the studio works on at once (drafting or publishing): each runs a sandbox process of its own. */
export const DRAFTS_WORKING_MAX = 8;

/** No draft can be taken now: too many are being worked on (the caller answers 503 with Retry-After). */
export class DraftsBusyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "DraftsBusyError";
  }
}

export type DraftStoreOptions = {
  /** Most drafts kept; the oldest resting ones go first, and one being worked on is never dropped. */
  limit?: number;
  /** Most drafts worked on at once (default DRAFTS_WORKING_MAX). */
  working?: number;
  /** How long a draft is kept once it rests (verified, failed, listed). */
  ttlMs?: number;
  now?: () => number;
};

/**
 * A draft store in memory (drafts are working state: a restart loses them, nothing on chain or on the host depends
 * on them). A draft the studio is working on (drafting, publishing) never expires; one at rest expires `ttlMs` after
 * it came to rest, so a verified draft is published, if at all, while the creator's signatures are still valid.
 * @example const drafts = createDraftStore(); const draft = drafts.create(sentence, creator)
 */
export function createDraftStore(options: DraftStoreOptions = {}): DraftStore {
  const limit = options.limit ?? 200;
  const workingMax = options.working ?? DRAFTS_WORKING_MAX;
  const ttlMs = options.ttlMs ?? DRAFT_TTL_MS;
  const now = options.now ?? Date.now;
  const drafts = new Map<string, Draft>();
  const gone = new Set<string>();
  const listeners = new Map<string, Set<(kind: "progress" | "state", data: unknown) => void>>();
  const notify = (draft: Draft, kind: "progress" | "state", data: unknown) => {
    for (const listener of listeners.get(draft.id) ?? []) listener(kind, data);
  };
  const forget = (id: string) => {
    drafts.delete(id);
    gone.add(id);
    for (const old of [...gone].slice(0, Math.max(0, gone.size - limit))) gone.delete(old);
  };
  const sweep = () => {
    for (const draft of drafts.values())
      if (draft.expiresAt !== undefined && Date.parse(draft.expiresAt) <= now()) forget(draft.id);
  };
  return {
    create(sentence, creator) {
      sweep();
      const working = [...drafts.values()].filter((d) => d.expiresAt === undefined).length;
      if (working >= workingMax)
        throw new DraftsBusyError(`${working} drafts are being worked on; try again when one is done`);
      const resting = [...drafts.values()].filter((d) => d.expiresAt !== undefined);
      if (drafts.size >= limit && resting.length === 0)
        throw new DraftsBusyError(`${drafts.size} drafts are kept and none is done; try again when one is`);
      // Beyond the limit the oldest resting drafts go (their ids answer expired); a draft being worked on stays.
      for (const old of resting.slice(0, Math.max(0, drafts.size + 1 - limit))) forget(old.id);
      const draft: Draft = {
        id: randomUUID(),
        sentence,
        creator,
        createdAt: new Date(now()).toISOString(),
        status: "drafting",
        stage: undefined,
        expiresAt: undefined,
        events: [],
      };
      drafts.set(draft.id, draft);
      return draft;
    },
    get(id) {
      sweep();
      return drafts.get(id);
    },
    expired: (id) => gone.has(id),
    emit(draft, event) {
      const stamped = { ...event, at: new Date(now()).toISOString() };
      draft.events.push(stamped);
      draft.stage = event.stage;
      notify(draft, "progress", stamped);
    },
    setStatus(draft, status) {
      draft.status = status;
      const resting = status === "verified" || status === "failed" || status === "listed";
      draft.expiresAt = resting ? new Date(now() + ttlMs).toISOString() : undefined;
      notify(draft, "state", { status });
    },
    subscribe(draft, listener) {
      const set = listeners.get(draft.id) ?? new Set();
      set.add(listener);
      listeners.set(draft.id, set);
      return () => {
        set.delete(listener);
        if (set.size === 0) listeners.delete(draft.id);
      };
    },
  };
}
