import { expect } from "chai";
import type { Address, PublicClient } from "viem";
import { devKey } from "../../../testkit/chain/localChain.ts";
import { until } from "../../../testkit/until.ts";
import { createSignerLanes, holds } from "./createSignerLanes.ts";
import { createSignerLeasing } from "./createSignerLeasing.ts";

/**
 * An instance above its share of a shared key pool gives back its idle signers. Before the fix a signer picked for an
 * `exact` settlement or a strike counted as idle until its nonce was taken (after the simulation and the fee checks,
 * RPC calls): given back meanwhile, the next instance took it, read the pending nonce count, and both sent at that
 * nonce. The lease book here is in memory; the lanes are the relayer's own.
 */
describe("createSignerLeasing", function () {
  this.timeout(30_000);
  it("gives back no signer that is about to send alone, and gives it back once it is done", async function () {
    let live = 1;
    const released: Address[] = [];
    const book = {
      beat: async () => live,
      hold: async () => true,
      release: async (addresses?: readonly Address[]) => void released.push(...(addresses ?? [])),
    };
    // Not read by anything here: no send is made.
    const lanes = createSignerLanes({} as PublicClient, [devKey(1), devKey(2)], devKey(1));
    const leasing = createSignerLeasing({ book, lanes, leaseMs: 300, onTaken: () => {} });
    await leasing.start();
    const [batching, exact] = lanes.debit;
    if (!batching || !exact) throw new Error("two debit lanes");
    try {
      expect([holds(batching), holds(exact)], "alone, it holds the pool").to.deep.equal([true, true]);
      batching.broadcasting = true;
      exact.sending = 1;
      live = 2;
      await until(() => (exact.yielding ? true : undefined), 5_000, "the share shrinking to one");
      await new Promise((resolve) => setTimeout(resolve, 400));
      expect(released, "the signer about to send is kept").to.deep.equal([]);
      expect(holds(exact)).to.equal(true);
      exact.sending = 0;
      await until(() => (released.includes(exact.account.address) ? true : undefined), 5_000, "given back");
      expect(holds(exact)).to.equal(false);
    } finally {
      await leasing.stop(false);
    }
  });
});
