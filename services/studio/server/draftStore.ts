import { randomUUID } from "node:crypto";
import type { Address, Hex } from "viem";
import type { Bundle, StudioEvent } from "../createEndpoint.ts";
import type { PublishTerms } from "../publish.ts";
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
  events: (StudioEvent & { at: string })[];
  bundle?: Bundle;
  resourceId?: Hex;
  terms?: PublishTerms;
  deactivation?: Record<string, unknown>;
  error?: { stage: string; code: string; message: string; details: Record<string, unknown> };
  result?: Record<string, unknown>;
};

/** In-memory drafts with progress listeners; the oldest are dropped beyond `limit`. */
export type DraftStore = {
  create(sentence: string, creator: Address): Draft;
  get(id: string): Draft | undefined;
  emit(draft: Draft, event: StudioEvent): void;
  setStatus(draft: Draft, status: DraftStatus): void;
  subscribe(draft: Draft, listener: (kind: "progress" | "state", data: unknown) => void): () => void;
};

/**
 * A draft store in memory (drafts are working state: a restart loses them, nothing on chain or on the host depends
 * on them).
 * @example const drafts = createDraftStore(); const draft = drafts.create(sentence, creator)
 */
export function createDraftStore(limit = 200): DraftStore {
  const drafts = new Map<string, Draft>();
  const listeners = new Map<string, Set<(kind: "progress" | "state", data: unknown) => void>>();
  const notify = (draft: Draft, kind: "progress" | "state", data: unknown) => {
    for (const listener of listeners.get(draft.id) ?? []) listener(kind, data);
  };
  return {
    create(sentence, creator) {
      const draft: Draft = {
        id: randomUUID(),
        sentence,
        creator,
        createdAt: new Date().toISOString(),
        status: "drafting",
        stage: undefined,
        events: [],
      };
      drafts.set(draft.id, draft);
      for (const id of [...drafts.keys()].slice(0, Math.max(0, drafts.size - limit))) drafts.delete(id);
      return draft;
    },
    get: (id) => drafts.get(id),
    emit(draft, event) {
      const stamped = { ...event, at: new Date().toISOString() };
      draft.events.push(stamped);
      draft.stage = event.stage;
      notify(draft, "progress", stamped);
    },
    setStatus(draft, status) {
      draft.status = status;
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
