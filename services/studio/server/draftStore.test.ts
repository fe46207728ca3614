import { expect } from "chai";
import type { Address } from "viem";
import { createDraftStore, DraftsBusyError } from "./draftStore.ts";

const creator = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8" as Address;

describe("the studio's drafts in memory", function () {
  it("works on at most `working` drafts at once: one more is refused until one comes to rest", function () {
    // Before, every draft started at once, each with a sandbox process of its own.
    const drafts = createDraftStore({ working: 2 });
    const [first] = [drafts.create("a", creator), drafts.create("b", creator)];
    expect(() => drafts.create("c", creator)).to.throw(DraftsBusyError, /2 drafts are being worked on/);
    drafts.setStatus(first!, "verified");
    expect(drafts.create("c", creator).status).to.equal("drafting");
  });

  it("attack: past its limit it forgets the oldest draft at rest, never one being worked on", function () {
    // Before, the oldest draft went whatever its state: a draft still drafting or publishing answered 404 while its
    // pipeline ran on.
    const drafts = createDraftStore({ limit: 3, working: 10 });
    const working = drafts.create("working", creator);
    const rested = drafts.create("rested", creator);
    drafts.setStatus(rested, "failed");
    const later = drafts.create("later", creator);
    drafts.setStatus(later, "verified");
    const newest = drafts.create("newest", creator);
    expect(drafts.get(working.id), "the working draft is kept").to.equal(working);
    expect(drafts.get(rested.id)).to.equal(undefined);
    expect(drafts.expired(rested.id), "the forgotten one answers expired").to.equal(true);
    expect(drafts.get(later.id)).to.equal(later);
    expect(drafts.get(newest.id)).to.equal(newest);
    // Three kept, none at rest: no room without dropping a working draft.
    drafts.setStatus(later, "publishing");
    expect(() => drafts.create("more", creator)).to.throw(DraftsBusyError, /none is done/);
  });
});
