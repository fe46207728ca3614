import type { ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "chai";
import type { Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import type { LocalChain } from "../../../testkit/chain/localChain.ts";
import { devKey, startLocalChain } from "../../../testkit/chain/localChain.ts";
import { committedHarness } from "../../../testkit/facilitator/committedHarness.ts";
import {
  facilitatorEnv,
  getJson,
  spawnFacilitator,
  startFacilitator,
} from "../../../testkit/facilitator/startFacilitator.ts";
import type { TestSchema } from "../../../testkit/postgres/testPostgres.ts";
import { testSchema } from "../../../testkit/postgres/testPostgres.ts";
import { sleep } from "../../../testkit/sleep.ts";
import { until } from "../../../testkit/until.ts";
import { POLICY_TTL_MS } from "../chain.ts";

const CAP = 50_000n;
/** Committed, with the batch held long enough for the buyer to act between the answer and the mining. */
const HELD = { SETTLEMENT: "committed", BATCH_WINDOW_MS: "1500" };

/**
 * Nothing a buyer can do between a commit and its mining may make the committed debit fail on chain. Each test
 * commits a debit, lets the buyer (or the world) act before the relayer sends it, and checks that it lands once.
 */
describe("a committed debit lands whatever happens after the commit", function () {
  let chain: LocalChain;
  let resourceId: Hex;
  const children: ChildProcess[] = [];

  before(async function () {
    chain = await startLocalChain();
    resourceId = await chain.registerResource({ slug: "echo", cap: CAP });
  });

  after(async function () {
    for (const child of children) child.kill("SIGKILL");
    await chain?.close();
  });

  /** A buyer of its own per test (a spend limit or a withdrawal request stays), by development account index. */
  async function buyerAt(index: number, deposit = 1_000_000n) {
    const account = privateKeyToAccount(devKey(index));
    await chain.fundBuyer(index, deposit);
    return { account, h: committedHarness({ chain, buyer: account, resourceId, cap: CAP }) };
  }

  async function expectLandedOnce(h: ReturnType<typeof committedHarness>, url: string, nonce: Hex, amount: bigint) {
    const confirmed = await h.resultWhen(url, nonce, "confirmed");
    const debits = await h.debitsOf(nonce);
    expect(debits.map((d) => d.amount)).to.deep.equal([amount]);
    expect(confirmed.decoded.transaction).to.equal(debits[0]?.transactionHash);
  }

  it("a withdrawal request of the whole balance after the commit", async function () {
    const { account, h } = await buyerAt(9);
    const facilitator = await startFacilitator(chain, { env: HELD });
    try {
      const before = await h.balance();
      const { payload, settled } = await h.pay(facilitator.url, 2_000n);
      expect(settled.body.status).to.equal("committed");
      await chain.contracts.escrow.write.requestWithdrawal([before], { account });
      let locked = false;
      await chain.contracts.escrow.write.withdraw({ account }).catch(() => (locked = true));
      expect(locked, "funds cannot leave before the withdrawal delay").to.equal(true);
      await expectLandedOnce(h, facilitator.url, payload.authorization.nonce, 2_000n);
      expect(await h.balance()).to.equal(before - 2_000n);
    } finally {
      await facilitator.stop();
    }
  });

  it("a spend-limit decrease below the amount after the commit", async function () {
    const { account, h } = await buyerAt(10);
    const facilitator = await startFacilitator(chain, { env: HELD });
    try {
      const { payload, settled } = await h.pay(facilitator.url, 3_000n);
      expect(settled.body.status).to.equal("committed");
      await chain.contracts.escrow.write.setSpendLimit([1n, 3_600n], { account });
      await expectLandedOnce(h, facilitator.url, payload.authorization.nonce, 3_000n);
    } finally {
      await facilitator.stop();
    }
  });

  it("nonce reuse: the committed nonce signed again, for more and for another resource", async function () {
    const { h } = await buyerAt(11);
    const other = await chain.registerResource({ slug: "echo-nonce-reuse", cap: CAP });
    const facilitator = await startFacilitator(chain, { env: HELD });
    try {
      const { payload, settled } = await h.pay(facilitator.url, 1_000n);
      expect(settled.body.status).to.equal("committed");
      const nonce = payload.authorization.nonce;
      const more = await h.verify(facilitator.url, await h.sign({ nonce, maxAmount: CAP * 2n }));
      expect(more.body).to.include({ isValid: false, invalidReason: "nonce_used" });
      const elsewhere = await h.verify(facilitator.url, await h.sign({ nonce, resourceId: other }), other);
      expect(elsewhere.body).to.include({ isValid: false, invalidReason: "nonce_used" });
      const resettled = await h.settle(facilitator.url, payload, CAP);
      expect(resettled.body.receipt, "a second settle cannot change the amount").to.equal(settled.body.receipt);
      await expectLandedOnce(h, facilitator.url, nonce, 1_000n);
    } finally {
      await facilitator.stop();
    }
  });

  it("a pause by the admin: the debit waits, is not released, and lands on unpause", async function () {
    const { h } = await buyerAt(12);
    const facilitator = await startFacilitator(chain, { env: { ...HELD, BATCH_WINDOW_MS: "300" } });
    try {
      const { payload, settled } = await h.pay(facilitator.url, 1_000n);
      expect(settled.body.status).to.equal("committed");
      await chain.contracts.escrow.write.pause();
      try {
        await until(async () => {
          const metrics = await getJson(`${facilitator.url}/metrics`);
          return /facilitator_settle_total\{outcome="committed_refused"\} [1-9]/.test(metrics.body) ? true : undefined;
        });
        await h.resultWhen(facilitator.url, payload.authorization.nonce, "committed");
        // Once the pause is read (the flag is cached POLICY_TTL_MS), a new call is not committed: it waits for the
        // chain, which refuses it (nothing is charged).
        await sleep(POLICY_TTL_MS + 100);
        const whilePaused = await h.pay(facilitator.url, 1_000n);
        expect(whilePaused.settled.status).to.equal(409);
        expect(whilePaused.settled.body.error.code).to.equal("settlement_failed");
      } finally {
        await chain.contracts.escrow.write.unpause();
      }
      await expectLandedOnce(h, facilitator.url, payload.authorization.nonce, 1_000n);
    } finally {
      await facilitator.stop();
    }
  });

  it("an RPC outage right after the commit", async function () {
    const { h } = await buyerAt(13);
    const facilitator = await startFacilitator(chain, { env: { ...HELD, BATCH_WINDOW_MS: "200" } });
    try {
      const { payload, settled } = await h.pay(facilitator.url, 1_000n);
      expect(settled.body.status).to.equal("committed");
      await chain.rpc.stop();
      await sleep(2_000);
      expect((await h.debitsOf(payload.authorization.nonce)).length).to.equal(0);
      await chain.rpc.resume();
      await expectLandedOnce(h, facilitator.url, payload.authorization.nonce, 1_000n);
    } finally {
      await chain.rpc.resume();
      await facilitator.stop();
    }
  });

  it("a relayer crash before sending, and a restart on the same PGlite directory", async function () {
    const { h } = await buyerAt(14);
    const dataDir = mkdtempSync(join(tmpdir(), "committed-crash-"));
    const env = { ...facilitatorEnv(chain), DATA_DIR: dataDir, SETTLEMENT: "committed", SETTLE_LEASE_SECONDS: "2" };
    try {
      const first = await spawnFacilitator({ ...env, BATCH_WINDOW_MS: "60000" });
      children.push(first.child);
      const { payload, settled } = await h.pay(first.url, 1_500n);
      expect(settled.body.status).to.equal("committed");
      first.child.kill("SIGKILL");
      await new Promise((resolve) => first.child.once("exit", resolve));
      expect((await h.debitsOf(payload.authorization.nonce)).length, "the crashed relayer sent nothing").to.equal(0);

      const second = await spawnFacilitator(env);
      children.push(second.child);
      await expectLandedOnce(h, second.url, payload.authorization.nonce, 1_500n);
      second.child.kill("SIGTERM");
      await new Promise((resolve) => second.child.once("exit", resolve));
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  describe("a second facilitator instance on the same PostgreSQL store", function () {
    let db: TestSchema;
    before(async () => {
      db = await testSchema("facilitator_committed");
    });
    after(async () => db?.drop());

    it("answers the same commitment, and drives it to the chain when the first instance dies", async function () {
      const { h } = await buyerAt(15);
      const env = {
        ...facilitatorEnv(chain),
        DATABASE_URL: db.url,
        DATABASE_SCHEMA: db.schema,
        SETTLEMENT: "committed",
        SETTLE_LEASE_SECONDS: "2",
        // The first instance dies holding the relayer key's lease: the second sends from it once the lease expires.
        SIGNER_LEASE_SECONDS: "2",
      };
      const first = await spawnFacilitator({ ...env, BATCH_WINDOW_MS: "60000" });
      children.push(first.child);
      const second = await spawnFacilitator(env);
      children.push(second.child);
      const { payload, settled } = await h.pay(first.url, 2_500n);
      expect(settled.body.status).to.equal("committed");
      const onSecond = await h.settle(second.url, payload, 2_500n);
      expect(onSecond.body.receipt, "the other instance answers the stored commitment").to.equal(settled.body.receipt);
      const reused = await h.verify(second.url, await h.sign({ nonce: payload.authorization.nonce }));
      expect(reused.body).to.include({ isValid: false, invalidReason: "nonce_used" });

      first.child.kill("SIGKILL");
      await new Promise((resolve) => first.child.once("exit", resolve));
      await expectLandedOnce(h, second.url, payload.authorization.nonce, 2_500n);
      second.child.kill("SIGTERM");
      await new Promise((resolve) => second.child.once("exit", resolve));
    });
  });
});
