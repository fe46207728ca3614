import { expect } from "chai";
import type { Hex } from "viem";
import { toFunctionSelector } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import type { LocalChain } from "../../../testkit/chain/localChain.ts";
import { devKey, ROLE, startLocalChain } from "../../../testkit/chain/localChain.ts";
import type { RequestProvider, RpcServer } from "../../../testkit/chain/rpcServer.ts";
import { serveRpc } from "../../../testkit/chain/rpcServer.ts";
import { signExactToEscrow } from "../../../testkit/facilitator/signExactToEscrow.ts";
import { postJson, startFacilitator } from "../../../testkit/facilitator/startFacilitator.ts";
import { signEscrowPayment } from "../../buyer/src/sdk/signPayment.ts";
import { BLOCK_TIME_MS } from "../../protocol/constants.ts";

const CAP = 50_000n;
const RESPONSE = { status: 200, contentType: "application/json", body: { ok: 1 } };

/**
 * Verify reserves against the escrow book the store keeps from the escrow's events (escrowBook/), never reading a
 * buyer's state on chain. These try to make it reserve money that is gone or a nonce that is spent, and check that a
 * book it cannot trust is refused, not guessed from.
 */
describe("verify against the escrow book", function () {
  let chain: LocalChain;
  let resourceId: Hex;
  let facilitator: Awaited<ReturnType<typeof startFacilitator>>;
  /**
   * The `to` and selector of every eth_call the facilitator made, through an RPC endpoint of its own that can be
   * stopped.
   */
  const calls: { to: string; selector: string }[] = [];
  /** How many times the facilitator asked the chain for its head (each catch-up of the book starts so). */
  let headReads = 0;
  /** Run before a call reaches the chain, when a test sets it (to move the book in the middle of an audit). */
  let moveBookBefore: ((call: { method: string; params?: unknown }) => Promise<void> | undefined) | undefined;
  let rpc: RpcServer;

  before(async function () {
    chain = await startLocalChain();
    resourceId = await chain.registerResource({ slug: "echo", cap: CAP });
    // A buyer who deposited before the facilitator ever ran: the book replays the escrow's history.
    await chain.fundBuyer(12, CAP * 3n);
    const upstream = chain.connection.provider as RequestProvider;
    rpc = await serveRpc({
      request(call) {
        if (call.method === "eth_call") {
          const [{ to, data, input }] = call.params as [{ to: string; data?: string; input?: string }];
          calls.push({ to: to.toLowerCase(), selector: String(data ?? input).slice(0, 10) });
        }
        if (call.method === "eth_blockNumber") headReads++;
        return (moveBookBefore?.(call) ?? Promise.resolve()).then(() => upstream.request(call));
      },
    });
    facilitator = await startFacilitator({ ...chain, rpcUrl: rpc.url }, { env: { SETTLEMENT: "confirmed" } });
  });

  after(async function () {
    await facilitator?.stop();
    await rpc?.stop();
    await chain?.close();
  });

  const payer = (index: number) => privateKeyToAccount(devKey(index));
  const sign = (index: number, nonce?: Hex, validForSeconds = 600) =>
    signEscrowPayment({
      account: payer(index),
      escrow: chain.addresses.escrow,
      resourceId,
      maxAmount: CAP,
      validBefore: BigInt(Math.floor(Date.now() / 1000) + validForSeconds),
      ...(nonce ? { nonce } : {}),
    });
  const verify = async (payload: Awaited<ReturnType<typeof sign>>) =>
    await postJson(`${facilitator.url}/verify`, { paymentPayload: payload, resourceId, maxTimeoutSeconds: 60 });
  /**
   * The facilitator's reads of the escrow about a buyer (balance, nonces, spend limit). Its fee and pause flag, read at
   * most once a second for the price floor and the committed split (chain.ts, escrowPolicy), are not about a buyer.
   */
  const POLICY_READS = new Set<string>([toFunctionSelector("feeBps()"), toFunctionSelector("paused()")]);
  const escrowCalls = () =>
    calls.filter((c) => c.to === chain.addresses.escrow.toLowerCase() && !POLICY_READS.has(c.selector)).length;

  it("reserves for a buyer who deposited before the facilitator started, without reading the escrow", async function () {
    const before = escrowCalls();
    const answer = await verify(await sign(12));
    expect(answer.body).to.include({ isValid: true });
    expect(escrowCalls(), "no eth_call to the escrow about the buyer").to.equal(before);
  });

  it("bookDoubleSpend: a debit mined after the book's block is held, so its funds are not reserved again", async function () {
    await chain.fundBuyer(9, CAP + CAP / 2n);
    const first = await sign(9);
    expect((await verify(first)).body.isValid).to.equal(true);
    const settled = await postJson(`${facilitator.url}/settle`, {
      idemKey: first.authorization.nonce,
      resourceId,
      amount: CAP.toString(),
      response: RESPONSE,
    });
    expect(settled.status).to.equal(200);
    expect(await chain.contracts.escrow.read.balanceOf([payer(9).address])).to.equal(CAP / 2n);
    // Half a cap is left, whether or not the book has seen the debit yet.
    expect((await verify(await sign(9))).body).to.include({ isValid: false, invalidReason: "insufficient_balance" });
    await facilitator.ctx.escrowBook.catchUpAfterNow();
    expect((await verify(await sign(9))).body).to.include({ isValid: false, invalidReason: "insufficient_balance" });
  });

  it("bookNonceReuse: a nonce signed again is refused, by the store alone", async function () {
    await chain.fundBuyer(10, CAP * 4n);
    const first = await sign(10);
    expect((await verify(first)).body.isValid).to.equal(true);
    const before = escrowCalls();
    const again = await verify(await sign(10, first.authorization.nonce, 900));
    expect(again.body).to.include({ isValid: false, invalidReason: "nonce_used" });
    expect(escrowCalls()).to.equal(before);
  });

  it("bookNonceSpentOnChain: a nonce some other relayer's debit spent is refused once the book has seen that debit", async function () {
    await chain.fundBuyer(13, CAP * 4n);
    const payload = await sign(13);
    // Debited straight on the escrow by a relayer that is not this facilitator: only the chain knows.
    const a = payload.authorization;
    const hash = await chain.contracts.escrow.write.debit(
      [
        {
          authorization: {
            buyer: a.buyer,
            resourceId: a.resourceId,
            maxAmount: BigInt(a.maxAmount),
            validAfter: BigInt(a.validAfter),
            validBefore: BigInt(a.validBefore),
            nonce: a.nonce,
          },
          amount: CAP,
          signature: payload.signature,
        },
      ],
      { account: chain.wallets[ROLE.relayer2]?.account },
    );
    await chain.publicClient.waitForTransactionReceipt({ hash });
    await facilitator.ctx.escrowBook.catchUpAfterNow();
    expect((await verify(payload)).body).to.include({ isValid: false, invalidReason: "nonce_used" });
  });

  it("sees a deposit mined a moment ago: a refusal is tried again once the book has caught up", async function () {
    await chain.fundBuyer(11, CAP / 2n);
    expect((await verify(await sign(11))).body).to.include({ isValid: false, invalidReason: "insufficient_balance" });
    await chain.fundBuyer(11, CAP * 2n);
    expect((await verify(await sign(11))).body.isValid, "reserved right after the deposit").to.equal(true);
  });

  it("refusalSpam: payments refused from an unfunded key start at most one catch-up of the book per gap, however many arrive", async function () {
    // Key 15 holds nothing in the escrow, so every payment it signs is refused, and each refusal asks the book to
    // catch up with the chain first (it may owe the refusal to a deposit it has not seen). Signing costs nothing, so
    // without a bound any key could make the facilitator call its RPC provider once per request.
    const streams = 4;
    const each = 15;
    const payloads = await Promise.all(Array.from({ length: streams * each }, () => sign(15)));
    const before = headReads;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: streams }, async (_, stream) => {
        for (let i = 0; i < each; i++) {
          const answer = await verify(payloads[stream * each + i] as (typeof payloads)[number]);
          expect(answer.body).to.include({ isValid: false, invalidReason: "insufficient_balance" });
        }
      }),
    );
    const elapsed = performance.now() - started;
    const reads = headReads - before;
    // The refusals' catch-ups (one start per gap, and one at the start), the follower's own (one per block, and one
    // at the start), and one spare.
    const bound =
      Math.floor(elapsed / facilitator.ctx.escrowBook.catchUpGapMs) + Math.floor(elapsed / BLOCK_TIME_MS) + 3;
    expect(reads, `${streams * each} refusals in ${elapsed.toFixed(0)} ms`).to.be.at.most(bound);
  });

  it("bookBehindRefused: a book that has not reached the head for its allowed lag is refused (503), not guessed from", async function () {
    await chain.fundBuyer(14, CAP * 3n);
    await facilitator.ctx.escrowBook.catchUpAfterNow();
    expect((await verify(await sign(14))).body.isValid).to.equal(true);
    // Only the book's own reads fail (its head, its logs): the verify's other reads (the resource's terms, the fee,
    // the relayer's funding, cached for a second or less) still reach the chain, so only the book can fail it, however
    // long a loaded machine takes between the two verifies.
    moveBookBefore = (call) =>
      call.method === "eth_blockNumber" || call.method === "eth_getLogs"
        ? Promise.reject({ code: -32603, message: "the node cannot serve this now" })
        : undefined;
    await facilitator.ctx.store.query("UPDATE escrow_book SET current_at = 0");
    try {
      const answer = await verify(await sign(14));
      expect(answer.status).to.equal(503);
      expect(answer.body.error).to.deep.include({ code: "chain_unavailable" });
      expect(answer.body.error.message).to.match(/escrow book/);
      expect(answer.headers.get("retry-after")).to.equal("2");
    } finally {
      moveBookBefore = undefined;
    }
    expect((await verify(await sign(14))).body.isValid, "once it has caught up").to.equal(true);
  });

  it("bookExactNotFromBalance: an exact settlement, paid from the buyer's tokens, leaves its escrow balance as booked", async function () {
    await chain.fundBuyer(16, CAP);
    const buyer = payer(16);
    const admin = chain.wallets[ROLE.admin]?.account;
    await chain.publicClient.waitForTransactionReceipt({
      hash: await chain.contracts.token.write.mint([buyer.address, CAP], { account: admin }),
    });
    const paymentPayload = await signExactToEscrow(chain, { account: buyer, value: CAP, resourceId });
    const verified = await postJson(`${facilitator.url}/verify`, { paymentPayload, resourceId, maxTimeoutSeconds: 60 });
    expect(verified.body.isValid).to.equal(true);
    const settled = await postJson(`${facilitator.url}/settle`, {
      idemKey: paymentPayload.authorization.nonce,
      resourceId,
      amount: CAP.toString(),
      response: RESPONSE,
    });
    expect(settled.status).to.equal(200);
    await facilitator.ctx.escrowBook.catchUpAfterNow();
    const [row] = await facilitator.ctx.store.query<{ balance: string }>(
      "SELECT balance::text AS balance FROM buyer_book WHERE buyer = $1",
      [buyer.address.toLowerCase()],
    );
    expect(row?.balance).to.equal(CAP.toString());
    expect((await verify(await sign(16))).body.isValid, "its escrow balance still pays a call").to.equal(true);
  });

  it("bookMatchesChain: after deposits, debits, a withdrawal request and an exact settlement, an audit round the whole book corrects nothing", async function () {
    const account = payer(10);
    await chain.publicClient.waitForTransactionReceipt({
      hash: await chain.contracts.escrow.write.requestWithdrawal([CAP], { account }),
    });
    await facilitator.ctx.escrowBook.catchUpAfterNow();
    const [{ buyers } = { buyers: 0 }] = await facilitator.ctx.store.query<{ buyers: number }>(
      "SELECT count(*)::int AS buyers FROM buyer_book",
    );
    expect(buyers).to.be.greaterThan(5);
    let corrected = 0;
    for (let round = 0; round <= Math.ceil(buyers / 8); round++) corrected += await facilitator.ctx.escrowBook.audit();
    expect(corrected).to.equal(0);
  });

  it("bookMissedLog: an audit finds a buyer booked richer than the chain, corrects it, and verify then refuses", async function () {
    await chain.fundBuyer(15, CAP / 2n);
    await facilitator.ctx.escrowBook.catchUpAfterNow();
    // As if the Deposited log that made this buyer rich had been missed the other way round.
    const inflated = await facilitator.ctx.store.query(
      "UPDATE buyer_book SET balance = balance * 100 WHERE buyer = $1 RETURNING 1",
      [payer(15).address.toLowerCase()],
    );
    expect(inflated, "the buyer is booked").to.have.length(1);
    let corrected = 0;
    for (let round = 0; round < 10 && corrected === 0; round++) corrected += await facilitator.ctx.escrowBook.audit();
    expect(corrected).to.equal(1);
    expect((await verify(await sign(15))).body).to.include({ isValid: false, invalidReason: "insufficient_balance" });
    const metrics = await (await fetch(`${facilitator.url}/metrics`)).text();
    expect(metrics).to.match(/facilitator_escrow_book_corrections_total 1/);
  });

  it("auditSkippedByBookMove: a buyer booked richer than the chain is corrected by the next audit when the book moved during its round", async function () {
    // An audit compares a round of buyers at the book's block and gives the round up when the book moves meanwhile,
    // which on a chain with a block every half second is often. A round given up must be compared again, or a buyer
    // whose round the follower keeps interrupting is never corrected.
    await chain.fundBuyer(17, CAP / 2n);
    await facilitator.ctx.escrowBook.catchUpAfterNow();
    const buyer = payer(17).address.toLowerCase();
    const inflated = await facilitator.ctx.store.query(
      "UPDATE buyer_book SET balance = balance * 100 WHERE buyer = $1 RETURNING 1",
      [buyer],
    );
    expect(inflated, "the buyer is booked").to.have.length(1);
    let interrupted = false;
    moveBookBefore = (call) => {
      const [{ data, input } = {}] = (call.params ?? []) as { data?: string; input?: string }[];
      if (call.method !== "eth_call" || !String(data ?? input).includes(buyer.slice(2))) return undefined;
      moveBookBefore = undefined;
      interrupted = true;
      // A block is mined and the book follows it while the audit reads this buyer's state at the book's old block.
      return (async () => {
        await (chain.connection.provider as RequestProvider).request({ method: "evm_mine", params: [] });
        await facilitator.ctx.escrowBook.catchUpAfterNow();
      })();
    };
    try {
      for (let round = 0; round < 20 && !interrupted; round++)
        expect(await facilitator.ctx.escrowBook.audit(), "a round before the buyer's").to.equal(0);
      expect(interrupted, "the audit reached the buyer").to.equal(true);
      expect(await facilitator.ctx.escrowBook.audit(), "the round the book moved during, compared again").to.equal(1);
    } finally {
      moveBookBefore = undefined;
    }
    expect((await verify(await sign(17))).body).to.include({ isValid: false, invalidReason: "insufficient_balance" });
  });
});
