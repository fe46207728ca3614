import { expect } from "chai";
import type { Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import type { LaggingLogsRpc } from "../../../testkit/chain/laggingLogsRpc.ts";
import { serveLaggingLogsRpc } from "../../../testkit/chain/laggingLogsRpc.ts";
import type { LocalChain } from "../../../testkit/chain/localChain.ts";
import { devKey, startLocalChain } from "../../../testkit/chain/localChain.ts";
import { committedHarness } from "../../../testkit/facilitator/committedHarness.ts";
import { startFacilitator } from "../../../testkit/facilitator/startFacilitator.ts";
import { sleep } from "../../../testkit/sleep.ts";
import { until } from "../../../testkit/until.ts";
import { driveSettlement } from "../settlePayment.ts";
import { readBookCursor } from "../store/escrowBook.ts";
import { findReservation } from "../store/reservations.ts";

const CAP = 50_000n;

/**
 * The escrow book trusted that `eth_getLogs` up to the head it read is complete. A provider whose nodes lag one another
 * (load-balanced) answers a head before it has that block's logs: the book passed the block holding a buyer's debits
 * without them, and from then on counted those funds as still there, so a buyer holding exactly three caps got a fourth
 * committed 200 whose debit can only fail (its creator unpaid). A head read one block low wiped the book and replayed
 * it from the start block (verify 503 meanwhile). These run the facilitator behind a real JSON-RPC proxy in front of
 * the chain that answers logs (and, in one, every other head) a block behind.
 */
describe("an escrow book behind a lagging RPC", function () {
  this.timeout(180_000);
  let chain: LocalChain;
  let rpc: LaggingLogsRpc;
  let resourceId: Hex;
  const mine = async (blocks: number) => {
    for (let i = 0; i < blocks; i++) await chain.connection.provider.request({ method: "evm_mine", params: [] });
  };

  before(async function () {
    chain = await startLocalChain();
    resourceId = await chain.registerResource({ slug: "lagging", cap: CAP });
    rpc = await serveLaggingLogsRpc(chain.connection.provider, { logs: 1 });
  });

  after(async function () {
    await rpc?.close();
    await chain?.close();
  });

  type Facilitator = Awaited<ReturnType<typeof startFacilitator>>;

  /** A buyer holding exactly three caps, booked by `facilitator`'s escrow book. */
  async function threeCaps(index: number, facilitator: Facilitator) {
    await chain.fundBuyer(index, CAP * 3n);
    // The deposit's block is past the book's margin once as many blocks follow it.
    await mine(facilitator.ctx.escrowBook.marginBlocks);
    await facilitator.ctx.escrowBook.catchUpAfterNow();
    return committedHarness({ chain, buyer: privateKeyToAccount(devKey(index)), resourceId, cap: CAP });
  }

  /** Pays three calls of a cap each through `facilitator`, answered committed, and waits until they are mined. */
  async function payThree(h: ReturnType<typeof committedHarness>, facilitator: Facilitator): Promise<void> {
    const paid: Hex[] = [];
    for (let i = 0; i < 3; i++) {
      const { payload, settled } = await h.pay(facilitator.url, CAP);
      expect(settled.body).to.include({ status: "committed" });
      paid.push(payload.authorization.nonce);
    }
    for (const nonce of paid) await h.resultWhen(facilitator.url, nonce, "confirmed");
    expect(await h.balance(), "all three caps debited on chain").to.equal(0n);
  }

  const metric = async (facilitator: Facilitator, name: string) =>
    Number(new RegExp(`^${name} (\\d+)$`, "m").exec(await (await fetch(`${facilitator.url}/metrics`)).text())?.[1]);

  it("laggingLogsFourthCap: a buyer holding exactly three caps gets no fourth committed 200 (the book follows two blocks below the head)", async function () {
    const facilitator = await startFacilitator(chain, {
      env: { RPC_URL: rpc.url, SETTLEMENT: "committed", ESCROW_BOOK_MARGIN_BLOCKS: "2" },
    });
    try {
      rpc.lag.logs = 0;
      const h = await threeCaps(9, facilitator);
      rpc.lag.logs = 1;
      await payThree(h, facilitator);
      // The book reads as far as it follows while the debits' block is the head, whose logs the RPC does not have.
      await facilitator.ctx.escrowBook.catchUpAfterNow();
      const fourth = await h.verify(facilitator.url, await h.sign());
      expect(fourth.body, "a fourth cap").to.include({ isValid: false, invalidReason: "insufficient_balance" });
      // Once the block is two deep the book has its logs, and the chain agrees with it.
      await mine(2);
      await facilitator.ctx.escrowBook.catchUpAfterNow();
      expect((await h.verify(facilitator.url, await h.sign())).body.isValid).to.equal(false);
      expect(await facilitator.ctx.escrowBook.audit()).to.equal(0);
      expect(rpc.calls("eth_getLogs"), "the book read its logs through the lagging RPC").to.be.greaterThan(0);
    } finally {
      await facilitator.stop();
    }
  });

  it("laggingLogsBeyondMargin: with a lag beyond its margin, the book refuses a page that lacks the debits it saw mined", async function () {
    const facilitator = await startFacilitator(chain, {
      env: { RPC_URL: rpc.url, SETTLEMENT: "committed", ESCROW_BOOK_MARGIN_BLOCKS: "0" },
    });
    try {
      // Without a margin the deposit's own block is read too early as well: booked before the RPC lags.
      rpc.lag.logs = 0;
      const h = await threeCaps(10, facilitator);
      rpc.lag.logs = 1;
      await payThree(h, facilitator);
      await facilitator.ctx.escrowBook.catchUpAfterNow();
      const fourth = await h.verify(facilitator.url, await h.sign());
      expect(fourth.body, "a fourth cap").to.include({ isValid: false, invalidReason: "insufficient_balance" });
      // A page read after the relayer saw the debits mined is refused; one read just before it, audited.
      const noticed =
        (await metric(facilitator, "facilitator_escrow_book_incomplete_pages_total")) +
        (await metric(facilitator, "facilitator_escrow_book_corrections_total"));
      expect(noticed, "pages refused and buyers corrected").to.be.greaterThan(0);
      // The RPC catches up: the page is booked with its debits, and nothing needed correcting.
      rpc.lag.logs = 0;
      try {
        const head = await chain.publicClient.getBlockNumber();
        await until(
          async () => {
            await facilitator.ctx.escrowBook.catchUp();
            return (await readBookCursor(facilitator.ctx.store))?.syncedBlock === head ? true : undefined;
          },
          20_000,
          "the book at the head",
        );
        expect((await h.verify(facilitator.url, await h.sign())).body.isValid).to.equal(false);
        expect(await facilitator.ctx.escrowBook.audit()).to.equal(0);
      } finally {
        rpc.lag.logs = 1;
      }
    } finally {
      await facilitator.stop();
    }
  });

  it("spentNonceReleased: a debit sent again and skipped as already spent is not released while the logs hide the first", async function () {
    const facilitator = await startFacilitator(chain, { env: { RPC_URL: rpc.url, SETTLEMENT: "confirmed" } });
    rpc.lag.logs = 0;
    try {
      const h = await threeCaps(13, facilitator);
      const { payload, settled } = await h.pay(facilitator.url, 1_000n);
      expect(settled.body, "debited, with its transaction").to.include({ success: true, amount: "1000" });
      const balance = await h.balance();
      const key = { idemKey: payload.authorization.nonce, buyer: payload.authorization.buyer };
      const store = facilitator.ctx.store;
      // As after a send whose answer was lost: the debit landed, and the reservation is still settling.
      await store.query(
        "UPDATE reservation SET status = 'settling', tx_hash = NULL, mined_block = NULL WHERE idem_key = $1 AND buyer = $2",
        [key.idemKey, key.buyer.toLowerCase()],
      );
      // The retrier sends it again; the escrow skips it (its nonce is spent), and the logs do not show the debit yet.
      rpc.lag.logs = 1_000_000;
      const hidden = await driveSettlement(facilitator.ctx, (await findReservation(store, key))!);
      expect(hidden.kind, "waits for the debit the chain says was made").to.equal("pending");
      expect((await findReservation(store, key))?.status, "not released as nothing debited").to.equal("settling");
      rpc.lag.logs = 0;
      const shown = await driveSettlement(facilitator.ctx, (await findReservation(store, key))!);
      expect(shown.kind).to.equal("settled");
      expect((await findReservation(store, key))?.status).to.equal("settled");
      expect(await h.balance(), "debited once").to.equal(balance);
    } finally {
      rpc.lag.logs = 1;
      await facilitator.stop();
    }
  });

  it("lowHeadReplay: a head read a block low is waited out; the book is never wiped or replayed", async function () {
    const facilitator = await startFacilitator(chain, { env: { RPC_URL: rpc.url, ESCROW_BOOK_MARGIN_BLOCKS: "0" } });
    rpc.lag.logs = 0;
    try {
      const buyer = privateKeyToAccount(devKey(11));
      await chain.fundBuyer(11, CAP * 3n);
      const h = committedHarness({ chain, buyer, resourceId, cap: CAP });
      await until(
        async () => ((await h.verify(facilitator.url, await h.sign())).body.isValid === true ? true : undefined),
        20_000,
        "a verify against the book",
      );
      const at = (await readBookCursor(facilitator.ctx.store))?.syncedBlock ?? -1n;
      expect(at).to.equal(await chain.publicClient.getBlockNumber());
      rpc.lag.lowHeadEvery = 2;
      const logReads = rpc.calls("eth_getLogs");
      const seen: bigint[] = [];
      for (let i = 0; i < 30; i++) {
        await facilitator.ctx.escrowBook.catchUp();
        seen.push((await readBookCursor(facilitator.ctx.store))?.syncedBlock ?? -1n);
        await sleep(50);
      }
      expect(
        seen.filter((block) => block !== at),
        "the book's block, read after 30 catch-ups while every other head is a block low",
      ).to.deep.equal([]);
      expect(rpc.calls("eth_getLogs") - logReads, "logs read again (a replay), with no block mined").to.equal(0);
      expect((await h.verify(facilitator.url, await h.sign())).body.isValid, "verify still reserves").to.equal(true);
    } finally {
      rpc.lag.lowHeadEvery = 0;
      rpc.lag.logs = 1;
      await facilitator.stop();
    }
  });

  it("reorgBelowBook: a chain that reorganised below the book's block is replayed, not built on", async function () {
    const facilitator = await startFacilitator(chain, { env: { ESCROW_BOOK_MARGIN_BLOCKS: "0" } });
    try {
      const buyer = privateKeyToAccount(devKey(12));
      const h = committedHarness({ chain, buyer, resourceId, cap: CAP });
      const snapshot = await chain.connection.provider.request({ method: "evm_snapshot", params: [] });
      await chain.fundBuyer(12, CAP * 3n);
      await facilitator.ctx.escrowBook.catchUpAfterNow();
      expect((await h.verify(facilitator.url, await h.sign())).body.isValid, "the deposit is booked").to.equal(true);
      // The deposit's blocks are replaced by others without it, and the chain grows past where the book stands.
      const booked = (await readBookCursor(facilitator.ctx.store))?.syncedBlock ?? 0n;
      await chain.connection.provider.request({ method: "evm_revert", params: [snapshot] });
      await mine(Number(booked - (await chain.publicClient.getBlockNumber())) + 2);
      await facilitator.ctx.escrowBook.catchUpAfterNow();
      await facilitator.ctx.escrowBook.catchUpAfterNow();
      expect((await h.verify(facilitator.url, await h.sign())).body, "the deposit is gone").to.include({
        isValid: false,
        invalidReason: "insufficient_balance",
      });
    } finally {
      await facilitator.stop();
    }
  });
});
