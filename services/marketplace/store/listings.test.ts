import { expect } from "chai";
import type { Hex } from "viem";
import { openStore } from "../../store/openStore.ts";
import type { Store } from "../../store/store.ts";
import { findListing, listingsChangedSince, removeListing, savePendingListing } from "./listings.ts";
import { MIGRATIONS } from "./migrations.ts";

const resourceId = `0x${"ab".repeat(32)}` as Hex;
const pending = {
  resourceId,
  creator: `0x${"11".repeat(20)}` as Hex,
  slug: "echo",
  resourceUrl: "https://r.example/echo",
  cardText: "{}",
  cardHash: `0x${"00".repeat(32)}` as Hex,
  sampleRequest: {},
  agentId: "1",
};

/**
 * Instances sharing one store each keep their own catalog and pull the listings changed since the last seq they
 * read. Before the fix a publish refused at its registration deleted its pending listing: no change for the others to
 * pull, so they kept listing it as pending, and listed it once the creator registered the resource outside the
 * pipeline (terms no moderation or price check saw).
 */
describe("listings shared by marketplace instances", function () {
  let store: Store;

  before(async function () {
    store = await openStore({ dataDir: "memory://", schema: "marketplace", migrations: MIGRATIONS });
  });

  after(async function () {
    await store?.close();
  });

  it("a listing removed after a refused publish is a change every instance pulls, and a retry makes it pending again", async function () {
    await savePendingListing(store, pending);
    const [saved] = await listingsChangedSince(store, 0n);
    expect(saved?.status).to.equal("pending");
    await removeListing(store, resourceId);
    const changes = await listingsChangedSince(store, saved?.seq ?? 0n);
    expect(changes.map((c) => [c.resourceId, c.status])).to.deep.equal([[resourceId, "removed"]]);
    await savePendingListing(store, pending);
    expect((await findListing(store, resourceId))?.status).to.equal("pending");
  });
});
