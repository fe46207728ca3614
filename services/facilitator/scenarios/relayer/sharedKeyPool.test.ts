import { expect } from "chai";
import type { Address, Hex } from "viem";
import { isAddressEqual } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { debitsOnChain } from "../../../../testkit/chain/debitsOnChain.ts";
import type { LocalChain } from "../../../../testkit/chain/localChain.ts";
import { devKey, ROLE, startLocalChain } from "../../../../testkit/chain/localChain.ts";
import { committedHarness } from "../../../../testkit/facilitator/committedHarness.ts";
import { facilitatorEnv } from "../../../../testkit/facilitator/startFacilitator.ts";
import { testStoreEnv } from "../../../../testkit/postgres/testPostgres.ts";
import { until } from "../../../../testkit/until.ts";
import type { Facilitator } from "../../createFacilitator.ts";
import { createFacilitator } from "../../createFacilitator.ts";
import { loadFacilitatorConfig } from "../../loadFacilitatorConfig.ts";
import { createLogger } from "../../logger.ts";

const CAP = 50_000n;
const AMOUNT = 1_000n;
/** What a nonce race between two senders of one key looks like, in a log line or an answer. */
const NONCE_RACE = /nonce.?too.?low|underpriced/i;

describe("facilitator instances sharing one pool of relayer keys", function () {
  this.timeout(120_000);
  let chain: LocalChain;
  let db: Awaited<ReturnType<typeof testStoreEnv>> | undefined;
  const instances: { facilitator: Facilitator; lines: string[] }[] = [];
  const buyer = privateKeyToAccount(devKey(ROLE.buyer));
  const pool = [privateKeyToAccount(devKey(ROLE.relayer)).address, privateKeyToAccount(devKey(ROLE.relayer2)).address];
  let harness: ReturnType<typeof committedHarness>;

  /** One instance on the shared schema with both relayer keys; its log lines (warn and up) are kept. */
  async function startInstance(env: Record<string, string>) {
    const lines: string[] = [];
    const config = loadFacilitatorConfig({
      ...facilitatorEnv(chain),
      ...env,
      RELAYER_KEYS: `${devKey(ROLE.relayer)},${devKey(ROLE.relayer2)}`,
      SETTLEMENT: "committed",
      SIGNER_LEASE_SECONDS: "2",
      RECEIPT_TIMEOUT_MS: "5000",
      SETTLE_WAIT_MS: "3000",
    });
    const logger = createLogger("facilitator", "warn", { write: (line: string) => void lines.push(line) });
    const facilitator = await createFacilitator(config, { logger, backgroundIntervalMs: 100 });
    const instance = { facilitator, lines };
    instances.push(instance);
    return instance;
  }

  /** Every debit of `nonces` once on chain (waits for them), with the signer of each. */
  async function minedOnce(nonces: Hex[]): Promise<Address[]> {
    const wanted = new Set(nonces.map((n) => n.toLowerCase()));
    const debits = await until(
      async () => {
        const all = (await debitsOnChain(chain, { buyer: buyer.address })).filter((d) =>
          wanted.has(d.nonce.toLowerCase()),
        );
        return new Set(all.map((d) => d.nonce.toLowerCase())).size === wanted.size ? all : undefined;
      },
      60_000,
      "every debit mined",
      250,
    );
    expect(debits).to.have.length(nonces.length);
    return Promise.all(
      debits.map(async (d) => (await chain.publicClient.getTransaction({ hash: d.transactionHash as Hex })).from),
    );
  }

  before(async function () {
    chain = await startLocalChain();
    const resourceId = await chain.registerResource({ slug: "echo", cap: CAP });
    await chain.fundBuyer(ROLE.buyer, CAP * 100n);
    harness = committedHarness({ chain, buyer, resourceId, cap: CAP });
    db = await testStoreEnv("PostgreSQL", "facilitator_lease");
    await startInstance(db.env);
    await startInstance(db.env);
  });

  after(async function () {
    await Promise.all(instances.map((i) => i.facilitator.stop()));
    await chain?.close();
    await db?.drop();
  });

  it("settles 40 concurrent payments over both instances with no nonce race, each debit mined once", async function () {
    const urls = instances.map((i) => i.facilitator.url);
    const paid = await Promise.all(Array.from({ length: 40 }, (_, i) => harness.pay(urls[i % 2] as string, AMOUNT)));
    expect(paid.map((p) => p.settled.status)).to.deep.equal(Array(40).fill(200));
    for (const p of paid) expect(JSON.stringify(p.settled.body)).not.to.match(NONCE_RACE);
    await minedOnce(paid.map((p) => p.payload.authorization.nonce));
    for (const { lines } of instances) expect(lines.filter((l) => NONCE_RACE.test(l))).to.deep.equal([]);
    // Each instance holds its share of the pool: one signer each, never the same.
    const held = await until(
      () => {
        const now = instances.map((i) => i.facilitator.ctx.relayer.heldSigners().filter((a) => pool.includes(a)));
        return now.every((h) => h.length === 1) ? now : undefined;
      },
      10_000,
      "one signer each",
    );
    expect(held[0]?.[0]).not.to.equal(held[1]?.[0]);
  });

  it("takes a dead instance's signer once its lease expires, and sends from it", async function () {
    const [dead, alive] = instances as [(typeof instances)[0], (typeof instances)[0]];
    const orphan = dead.facilitator.ctx.relayer.heldSigners().find((a) => pool.includes(a)) as Address;
    // Dies without giving its leases back: they only expire.
    await dead.facilitator.ctx.relayer.stopLeasing(false);
    await until(
      () => (alive.facilitator.ctx.relayer.heldSigners().includes(orphan) ? true : undefined),
      15_000,
      "the dead instance's signer taken over",
    );
    const nonces: Hex[] = [];
    for (let i = 0; i < 4; i++) {
      const { payload, settled } = await harness.pay(alive.facilitator.url, AMOUNT);
      expect(settled.status).to.equal(200);
      nonces.push(payload.authorization.nonce);
      await minedOnce([payload.authorization.nonce]);
    }
    const senders = await minedOnce(nonces);
    expect(senders.some((s) => isAddressEqual(s, orphan))).to.equal(true);
    expect(alive.lines.filter((l) => NONCE_RACE.test(l))).to.deep.equal([]);
  });
});
