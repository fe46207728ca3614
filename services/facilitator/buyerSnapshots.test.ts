import { expect } from "chai";
import type { Address, Hex } from "viem";
import { createBuyerSnapshots } from "./buyerSnapshots.ts";
import type { BuyerState } from "./chain.ts";

const BUYER = "0x00000000000000000000000000000000000000b1" as Address;
const NONCE_A = `0x${"aa".repeat(32)}` as Hex;
const NONCE_B = `0x${"bb".repeat(32)}` as Hex;

function stateAt(block: bigint, nonceSpent = false): BuyerState {
  return {
    balance: 1_000n,
    pendingWithdrawal: 0n,
    spendLimit: { limit: 0n, period: 0n, windowStart: 0n, spent: 0n, pending: null },
    nonceSpent,
    atBlock: block,
  };
}

describe("buyer snapshots", function () {
  function setup(ttlMs: number) {
    let clock = 1_000;
    const reads: Hex[] = [];
    let fail = false;
    const snapshots = createBuyerSnapshots(
      async (_buyer, nonce) => {
        reads.push(nonce);
        if (fail) throw new Error("rpc down");
        return stateAt(BigInt(reads.length), true);
      },
      ttlMs,
      () => clock,
    );
    return {
      snapshots,
      reads,
      advance: (ms: number) => (clock += ms),
      failReads: (value: boolean) => (fail = value),
    };
  }

  it("reads the chain for a buyer's first verify, with that nonce's state", async function () {
    const { snapshots, reads } = setup(1_000);
    const state = await snapshots.get(BUYER, NONCE_A);
    expect(reads).to.deep.equal([NONCE_A]);
    expect(state.nonceSpent).to.equal(true);
  });

  it("shares the snapshot within its lifetime, without a nonce state (the store decides reuse)", async function () {
    const { snapshots, reads, advance } = setup(1_000);
    await snapshots.get(BUYER, NONCE_A);
    advance(999);
    const shared = await snapshots.get(BUYER.toUpperCase().replace("0X", "0x") as Address, NONCE_B);
    expect(reads).to.deep.equal([NONCE_A]);
    expect(shared.nonceSpent).to.equal(null);
    expect(shared.atBlock).to.equal(1n);
  });

  it("shares a read still in flight with concurrent verifies of the same buyer", async function () {
    const { snapshots, reads } = setup(1_000);
    const [first, second] = await Promise.all([snapshots.get(BUYER, NONCE_A), snapshots.get(BUYER, NONCE_B)]);
    expect(reads).to.deep.equal([NONCE_A]);
    expect([first.nonceSpent, second.nonceSpent]).to.deep.equal([true, null]);
  });

  it("reads afresh once the lifetime has passed, and when asked to", async function () {
    const { snapshots, reads, advance } = setup(1_000);
    await snapshots.get(BUYER, NONCE_A);
    advance(1_000);
    expect((await snapshots.get(BUYER, NONCE_B)).atBlock).to.equal(2n);
    expect((await snapshots.get(BUYER, NONCE_A, { fresh: true })).atBlock).to.equal(3n);
    expect(reads).to.deep.equal([NONCE_A, NONCE_B, NONCE_A]);
  });

  it("keeps no failed read: the next verify reads again", async function () {
    const { snapshots, reads, failReads } = setup(1_000);
    failReads(true);
    let failed = false;
    await snapshots.get(BUYER, NONCE_A).catch(() => (failed = true));
    expect(failed).to.equal(true);
    failReads(false);
    expect((await snapshots.get(BUYER, NONCE_B)).nonceSpent).to.equal(true);
    expect(reads).to.deep.equal([NONCE_A, NONCE_B]);
  });

  it("reads the chain for every verify with a lifetime of 0", async function () {
    const { snapshots, reads } = setup(0);
    await snapshots.get(BUYER, NONCE_A);
    await snapshots.get(BUYER, NONCE_B);
    expect(reads).to.deep.equal([NONCE_A, NONCE_B]);
  });
});
