import { expect } from "chai";
import type { Hex } from "viem";
import { openTestStore, TEST_STORES } from "../../../../testkit/facilitator/openTestStore.ts";
import { storePaidCalls } from "../../../../testkit/facilitator/storePaidCalls.ts";
import { encodeBase64Json } from "../../../protocol/base64.ts";
import type { Store } from "../../store/createStore.ts";
import { advanceBook, resetBook } from "../../store/escrowBook.ts";
import type { ReserveAgainst } from "../../store/reservations.ts";
import { claimAndCommit, claimForSettlement, purgeReservations, reserve } from "../../store/reservations.ts";
import { findResult, MINED_GROUP_MAX, recordCommitment, recordSettlement } from "../../store/results.ts";

/** The hash of a page's last block and of the start block: the store keeps them, the follower checks them. */
const HASH: Hex = `0x${"ab".repeat(32)}`;

const hex = (n: number): Hex => `0x${n.toString(16).padStart(64, "0")}`;
const resourceId = hex(1);
const buyer: Hex = `0x${"ab".repeat(20)}`;
const payload = { scheme: "service-escrow", authorization: {}, signature: "0x" as Hex };
const response = { status: 200, contentType: "application/json", body: { ok: true } };
const chain = (available: bigint) => ({ now: 1, available, room: null, atBlock: 1n });
/** A stored receipt of `fields`, and the settle answer read from it (settle_answer): its fields and itself. */
const receiptOf = (fields: Record<string, unknown>) => encodeBase64Json(fields);
const answerOf = (fields: Record<string, unknown>) => ({ ...fields, receipt: receiptOf(fields) });
const DAY = 86_400;

for (const kind of TEST_STORES) {
  /** The statements a settle makes, as many concurrent requests make them: in groups (services/store/coalesce.ts). */
  describe(`grouped store statements (${kind})`, function () {
    let store: Store;
    let next = 100;

    beforeEach(async function () {
      store = await openTestStore(kind);
    });
    afterEach(async function () {
      await store.close();
    });

    const reservation = (idemKey: Hex) => ({
      idemKey,
      scheme: "service-escrow" as const,
      buyer,
      resourceId,
      cap: 1_000n,
      payload,
      validBefore: 9_999_999_999,
    });

    it("reserves a buyer's balance once across a group: each reservation sees the ones before it", async function () {
      const outcomes = await Promise.all(
        Array.from({ length: 20 }, () => reserve(store, reservation(hex(next++)), chain(5_000n))),
      );
      expect(outcomes.filter((o) => o.outcome === "reserved")).to.have.length(5);
      expect(outcomes.filter((o) => o.outcome === "insufficient_balance")).to.have.length(15);
    });

    it("decides a group as it decides each of its reservations alone, in order", async function () {
      const second = await openTestStore(kind);
      try {
        const now = 1_000;
        const buyers = [1, 2, 3, 4].map((b) => `0x${String(b).repeat(40)}` as Hex);
        // The same history in both stores: three debits of 1,000 mined in block 3 for two buyers, and a book of
        // deposits synced to block 2, current at `now`.
        const history = buyers
          .slice(0, 2)
          .flatMap((b, n) => [0, 1, 2].map((i) => ({ buyer: b, idemKey: hex(900 + n * 3 + i) })));
        for (const s of [store, second]) {
          await storePaidCalls(s, { resourceId, payments: history, now, validBefore: now + 600, block: 3, response });
          await resetBook(s, "0xe5", 1n, HASH);
          const deposits = buyers.map((b, n) => ({
            kind: "deposited" as const,
            buyer: b,
            block: 2n,
            balance: BigInt(4_000 + 2_000 * n),
          }));
          await advanceBook(s, { toHash: HASH, from: 1n, to: 2n, events: deposits, currentAt: now });
        }
        let seed = 7;
        const pick = <T>(choices: readonly T[]): T => {
          seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
          return choices[Math.floor(seed / 65_536) % choices.length] as T;
        };
        const items = Array.from({ length: 90 }, (_, n) => {
          const scheme = pick(["service-escrow", "service-escrow", "exact"] as const);
          const idemKey = pick(["fresh", "fresh", "fresh", "fresh", "fresh", "fresh", "again", "history"]);
          const against: ReserveAgainst =
            scheme === "service-escrow" && pick([true, false])
              ? { now, book: { maxLagSeconds: 60 } }
              : {
                  now,
                  available: pick([2_000n, 5_000n, 9_000n]),
                  room: pick([null, 3_000n]),
                  atBlock: pick([2n, 3n, 4n]),
                };
          return {
            r: {
              idemKey:
                idemKey === "fresh"
                  ? hex(2_000 + n)
                  : idemKey === "again"
                    ? hex(2_000 + Math.max(0, n - 3))
                    : hex(900 + (n % 6)),
              scheme,
              buyer: pick(buyers),
              resourceId,
              cap: pick([300n, 700n, 1_500n, 2_500n]),
              payload,
              validBefore: pick([now + 300, now + 300, now + 300, now]),
            },
            against,
          };
        });
        const grouped = await Promise.all(items.map(({ r, against }) => reserve(store, r, against)));
        const alone = [];
        for (const { r, against } of items) alone.push(await reserve(second, r, against));
        expect(grouped).to.deep.equal(alone);
        const outcomes = new Set(alone.map((o) => o.outcome));
        expect([...outcomes].sort(), "the mix decides every way").to.deep.equal([
          "insufficient_balance",
          "nonce_used",
          "over_cap",
          "reserved",
        ]);
        const rows = (s: Store) =>
          s.query(
            "SELECT idem_key, buyer, scheme, cap::text, valid_before, status, from_block FROM reservation ORDER BY buyer, idem_key",
          );
        expect(await rows(store)).to.deep.equal(await rows(second));
      } finally {
        await second.close();
      }
    });

    it("refuses a nonce reserved twice in one group", async function () {
      const idemKey = hex(next++);
      const outcomes = await Promise.all(
        Array.from({ length: 4 }, () => reserve(store, reservation(idemKey), chain(50_000n))),
      );
      expect(outcomes.map((o) => o.outcome).sort()).to.deep.equal([
        "nonce_used",
        "nonce_used",
        "nonce_used",
        "reserved",
      ]);
    });

    it("commits a lone settle only on the terms verify reserved: resource, buyer, cap and a live window", async function () {
      const idemKey = hex(next++);
      expect(await reserve(store, reservation(idemKey), chain(50_000n))).to.include({ outcome: "reserved" });
      const terms = {
        idemKey,
        resourceId,
        buyer,
        cap: reservation(idemKey).cap,
        amount: 500n,
        response,
        leaseUntil: 100,
        receipt: receiptOf({ status: "committed" }),
        expiresAt: 10_000,
      };
      const other: Hex = `0x${"cd".repeat(20)}`;
      for (const [what, c, now] of [
        ["another resource", { ...terms, resourceId: hex(2) }, 1],
        ["another buyer", { ...terms, buyer: other }, 1],
        ["another cap", { ...terms, cap: terms.cap + 1n }, 1],
        ["a closed window", terms, reservation(idemKey).validBefore],
      ] as const)
        expect(await claimAndCommit(store, c, now), what).to.equal(null);
      const [row] = await store.query<{ status: string; receipt: string | null }>(
        "SELECT status, receipt FROM reservation WHERE idem_key = $1",
        [idemKey],
      );
      expect(row).to.deep.equal({ status: "reserved", receipt: null });
      expect(await claimAndCommit(store, terms, 1)).to.include({ status: "settling", amount: 500n, idemKey });
      expect(await claimAndCommit(store, terms, 1), "a second commit of the same call").to.equal(null);
    });

    it("holds a settling or freshly mined debit at its amount, not at its cap", async function () {
      const [first, second, third, fourth] = [hex(next++), hex(next++), hex(next++), hex(next++)];
      const capped = (idemKey: Hex) => ({ ...reservation(idemKey), cap: 50_000n });
      const at = (available: bigint, atBlock: bigint) => ({ now: 1, available, room: null, atBlock });
      expect(await reserve(store, capped(first), at(60_000n, 1n))).to.deep.equal({
        outcome: "reserved",
        held: 0n,
        available: 60_000n,
      });
      const committed = await claimAndCommit(
        store,
        {
          idemKey: first,
          resourceId,
          buyer,
          cap: 50_000n,
          amount: 1_200n,
          response,
          leaseUntil: 100,
          receipt: receiptOf({ status: "committed" }),
          expiresAt: 10_000,
        },
        1,
      );
      expect(committed).to.include({ status: "settling", amount: 1_200n });
      // Settling: the escrow will take 1,200, so 58,800 of 60,000 is free for the next call's cap.
      expect(await reserve(store, capped(second), at(60_000n, 1n))).to.deep.equal({
        outcome: "reserved",
        held: 1_200n,
        available: 60_000n,
      });
      const result = { idemKey: first, buyer, resourceId, receipt: receiptOf({}), settledAt: 1, expiresAt: 10_000 };
      await recordSettlement(store, result, { transaction: hex(9), block: 5n });
      // Mined in block 5, which a chain read at block 5 may not reflect yet: still held, at 1,200.
      expect(await reserve(store, capped(third), at(101_199n, 5n))).to.deep.equal({
        outcome: "insufficient_balance",
        held: 51_200n,
        available: 101_199n,
      });
      expect(await reserve(store, capped(fourth), at(101_200n, 5n))).to.deep.equal({
        outcome: "reserved",
        held: 51_200n,
        available: 101_200n,
      });
    });

    it("lets one claim of an idemKey win, alone or in a group", async function () {
      const idemKeys = [hex(next++), hex(next++)];
      for (const idemKey of idemKeys) await reserve(store, reservation(idemKey), chain(50_000n));
      const claim = (idemKey: Hex) =>
        claimForSettlement(store, { idemKey, buyer, resourceId, amount: 5_000n, response, leaseUntil: 100 }, 1);
      const claims = await Promise.all([...idemKeys, ...idemKeys, ...idemKeys].map(claim));
      expect(
        claims
          .filter((c) => c !== null)
          .map((c) => c?.idemKey)
          .sort(),
      ).to.deep.equal([...idemKeys].sort());
      expect(claims.filter((c) => c !== null).map((c) => c?.amount)).to.deep.equal([1_000n, 1_000n]);
    });

    it("claims and commits in one statement only a live reservation with the verified cap and resource", async function () {
      const [mine, otherCap, otherResource, otherBuyer, twice] = [
        hex(next++),
        hex(next++),
        hex(next++),
        hex(next++),
        hex(next++),
      ];
      for (const idemKey of [mine, otherCap, otherResource, otherBuyer, twice])
        await reserve(store, reservation(idemKey), chain(50_000n));
      const commit = (idemKey: Hex, over: { cap?: bigint; resourceId?: Hex; buyer?: string } = {}) =>
        claimAndCommit(
          store,
          {
            idemKey,
            resourceId: over.resourceId ?? resourceId,
            buyer: over.buyer ?? buyer.toUpperCase().replace("0X", "0x"),
            cap: over.cap ?? 1_000n,
            amount: 700n,
            response,
            leaseUntil: 100,
            receipt: receiptOf({ status: "committed", idemKey }),
            expiresAt: 10_000,
          },
          1,
        );
      const claimed = await Promise.all([
        commit(mine),
        commit(otherCap, { cap: 2_000n }),
        commit(otherResource, { resourceId: hex(2) }),
        commit(otherBuyer, { buyer: `0x${"cd".repeat(20)}` }),
        commit(twice),
        commit(twice),
      ]);
      expect(claimed.map((r) => r?.idemKey ?? null)).to.deep.equal([mine, null, null, null, twice, null]);
      expect(claimed[0]).to.include({ status: "settling", amount: 700n, committedAt: 1 });
      expect((await findResult(store, { idemKey: mine, buyer }, 1))?.body).to.deep.equal(
        answerOf({ status: "committed", idemKey: mine }),
      );
      expect(await findResult(store, { idemKey: otherCap, buyer }, 1)).to.equal(null);
      const untouched = await claimForSettlement(
        store,
        { idemKey: otherCap, buyer, resourceId, amount: 900n, response, leaseUntil: 100 },
        1,
      );
      expect(untouched).to.include({ status: "settling", amount: 900n, committedAt: null });
    });

    it("keeps any JSON a handler answered, alone or in a group, claimed or committed: \\u0000, lone surrogates, __proto__, key order", async function () {
      // jsonb refused the first two (so the settle failed for good) and sorted the keys.
      const bodies = [
        JSON.parse('{"nul":"x\\u0000y","lone":"\\ud800","zeta":1,"a":2}'),
        JSON.parse('{"__proto__":{"polluted":true},"b":[1,"\\udfff"]}'),
      ];
      const responseOf = (body: unknown) => ({ status: 200, contentType: "application/json", body });
      const settle = {
        claim: (idemKey: Hex, body: unknown) =>
          claimForSettlement(
            store,
            { idemKey, buyer, resourceId, amount: 500n, response: responseOf(body), leaseUntil: 100 },
            1,
          ),
        commit: (idemKey: Hex, body: unknown) =>
          claimAndCommit(
            store,
            {
              idemKey,
              resourceId,
              buyer,
              cap: 1_000n,
              amount: 500n,
              response: responseOf(body),
              leaseUntil: 100,
              receipt: receiptOf({ status: "committed", idemKey }),
              expiresAt: 10_000,
            },
            1,
          ),
      };
      for (const [how, write] of Object.entries(settle)) {
        const alone = hex(next++);
        const group = bodies.map(() => hex(next++));
        for (const idemKey of [alone, ...group]) await reserve(store, reservation(idemKey), chain(50_000n));
        const written = [
          await write(alone, bodies[0]),
          ...(await Promise.all(group.map((k, i) => write(k, bodies[i])))),
        ];
        expect(
          written.map((r) => r?.idemKey),
          `${how}: every call settling`,
        ).to.deep.equal([alone, ...group]);
        for (const [i, idemKey] of [alone, ...group].entries()) {
          const body = [bodies[0], ...bodies][i];
          const [row] = await store.query<{ response: unknown }>(
            "SELECT response FROM reservation WHERE idem_key = $1 AND buyer = $2",
            [idemKey, buyer.toLowerCase()],
          );
          expect(JSON.stringify(row?.response), `${how} ${i}: the same JSON, keys in order`).to.equal(
            JSON.stringify(responseOf(body)),
          );
        }
      }
      expect(({} as { polluted?: boolean }).polluted).to.equal(undefined);
    });

    it("stores one commitment per idemKey and answers every duplicate with it; the confirmed result replaces it", async function () {
      const idemKey = hex(next++);
      await reserve(store, reservation(idemKey), chain(50_000n));
      await claimForSettlement(store, { idemKey, buyer, resourceId, amount: 500n, response, leaseUntil: 100 }, 1);
      const result = (fields: Record<string, unknown>) => ({
        idemKey,
        buyer,
        resourceId,
        receipt: receiptOf(fields),
        settledAt: 1,
        expiresAt: 10_000,
      });
      const bodies = await Promise.all(
        [1, 2, 3].map((n) => recordCommitment(store, result({ status: "committed", n }))),
      );
      expect(bodies).to.deep.equal([1, 1, 1].map((n) => answerOf({ status: "committed", n })));
      const confirmed = await Promise.all(
        [1, 2].map((n) =>
          recordSettlement(store, result({ status: "confirmed", n }), { transaction: hex(7), block: 3n }),
        ),
      );
      expect(confirmed).to.deep.equal([1, 1].map((n) => answerOf({ status: "confirmed", n })));
      expect((await findResult(store, { idemKey, buyer }, 1))?.body).to.deep.equal(
        answerOf({ status: "confirmed", n: 1 }),
      );
      const [row] = await store.query<{ status: string; mined_block: string }>(
        "SELECT status, mined_block::text AS mined_block FROM reservation WHERE idem_key = $1",
        [idemKey],
      );
      expect(row).to.deep.equal({ status: "settled", mined_block: "3" });
    });

    it("records a mined result whose answer no one reads without reading it back, alone or in a group", async function () {
      const keys = [hex(next++), hex(next++), hex(next++)];
      for (const idemKey of keys) {
        await reserve(store, reservation(idemKey), chain(50_000n));
        await claimForSettlement(store, { idemKey, buyer, resourceId, amount: 500n, response, leaseUntil: 100 }, 1);
      }
      const [alone, grouped, wanted] = keys;
      const result = (idemKey: Hex) => ({
        idemKey,
        buyer,
        resourceId,
        receipt: receiptOf({ status: "confirmed", idemKey }),
        settledAt: 1,
        expiresAt: 10_000,
      });
      const mined = { transaction: hex(7), block: 3n };
      expect(await recordSettlement(store, result(alone as Hex), mined, false)).to.equal(null);
      // In one group: the same key unread and read (the read one gets the answer), and another key unread.
      const answers = await Promise.all([
        recordSettlement(store, result(wanted as Hex), mined, false),
        recordSettlement(store, result(wanted as Hex), mined),
        recordSettlement(store, result(grouped as Hex), mined, false),
      ]);
      expect(answers).to.deep.equal([
        answerOf({ status: "confirmed", idemKey: wanted }),
        answerOf({ status: "confirmed", idemKey: wanted }),
        null,
      ]);
      for (const idemKey of keys)
        expect((await findResult(store, { idemKey, buyer }, 1))?.body, "stored all the same").to.deep.equal(
          answerOf({ status: "confirmed", idemKey }),
        );
      const tombstones = await store.query<{ nonce: string }>(
        "SELECT nonce FROM spent_nonce WHERE buyer = $1 AND nonce = ANY($2::text[]) ORDER BY nonce",
        [buyer, keys],
      );
      expect(
        tombstones.map((t) => t.nonce),
        "every nonce spent for good",
      ).to.deep.equal([...keys].sort());
    });

    it("records a mined batch in groups: a reservation made meanwhile waits for one group, not the batch", async function () {
      // Before the cap one statement recorded the whole batch (5–25 ms for a hundred debits on PGlite), and a paid
      // call's reservation made meanwhile waited for all of it.
      const statements: string[] = [];
      let reserving: Promise<unknown> | undefined;
      const watched: Store = {
        ...store,
        query: (text, params) => {
          const mined = /UPDATE reservation r SET status = 'settled'/.test(text);
          statements.push(mined ? `mined ${(JSON.parse(params?.[0] as string) as unknown[]).length}` : "other");
          if (mined && !reserving) reserving = reserve(watched, reservation(hex(next++)), chain(50_000n));
          return store.query(text, params);
        },
      };
      const batch = 2 * MINED_GROUP_MAX + 3;
      const mined = { transaction: hex(7), block: 3n };
      await Promise.all(
        Array.from({ length: batch }, () =>
          recordSettlement(
            watched,
            { idemKey: hex(next++), buyer, resourceId, receipt: receiptOf({}), settledAt: 1, expiresAt: 10_000 },
            mined,
            false,
          ),
        ),
      );
      expect(await reserving).to.include({ outcome: "reserved" });
      expect(statements).to.deep.equal([`mined ${MINED_GROUP_MAX}`, "other", `mined ${MINED_GROUP_MAX}`, "mined 3"]);
    });

    it("keys a nonce by its buyer, and refuses a debited one for good once its reservation is purged", async function () {
      const idemKey = hex(next++);
      const other: Hex = `0x${"cd".repeat(20)}`;
      const mine = reservation(idemKey);
      expect(await reserve(store, mine, chain(50_000n))).to.include({ outcome: "reserved" });
      expect(await reserve(store, { ...mine, buyer: other }, chain(50_000n)), "another buyer's").to.include({
        outcome: "reserved",
      });
      await claimForSettlement(store, { idemKey, buyer, resourceId, amount: 500n, response, leaseUntil: 100 }, 1);
      const result = { idemKey, buyer, resourceId, receipt: receiptOf({}), settledAt: 1, expiresAt: 10 };
      await recordSettlement(store, result, { transaction: hex(7), block: 3n });
      expect(await purgeReservations(store, mine.validBefore + DAY, DAY)).to.equal(1);
      const reused = { ...mine, validBefore: mine.validBefore + DAY + 600 };
      expect(await reserve(store, reused, { ...chain(50_000n), now: mine.validBefore + DAY })).to.deep.equal({
        outcome: "nonce_used",
      });
    });
  });
}
