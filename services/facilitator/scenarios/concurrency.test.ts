import { expect } from "chai";
import type { Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { debitsOnChain } from "../../../testkit/chain/debitsOnChain.ts";
import type { LocalChain } from "../../../testkit/chain/localChain.ts";
import { devKey, ROLE, startLocalChain } from "../../../testkit/chain/localChain.ts";
import { postJson, startFacilitator } from "../../../testkit/facilitator/startFacilitator.ts";
import { testStoreEnv } from "../../../testkit/postgres/testPostgres.ts";
import { signEscrowPayment } from "../../buyer/src/sdk/signPayment.ts";

const CAP = 50_000n;

describe("facilitator instances sharing one PostgreSQL database", function () {
  let chain: LocalChain;
  let instances: Awaited<ReturnType<typeof startFacilitator>>[] = [];
  let resourceId: Hex;
  let db: Awaited<ReturnType<typeof testStoreEnv>> | undefined;
  const buyer = privateKeyToAccount(devKey(ROLE.buyer));

  before(async function () {
    chain = await startLocalChain();
    resourceId = await chain.registerResource({ slug: "echo", cap: CAP });
    await chain.fundBuyer(ROLE.buyer, CAP * 10n);
    db = await testStoreEnv("PostgreSQL", "facilitator_test");
    // One relayer key each: instances sharing a key take turns through its lease (relayer/sharedKeyPool.test.ts).
    const env = {
      ...db.env,
      RELAYER_KEYS: `${devKey(ROLE.relayer)},${devKey(ROLE.relayer2)}`,
      SIGNER_LEASE_SECONDS: "3",
    };
    instances = await Promise.all([startFacilitator(chain, { env }), startFacilitator(chain, { env })]);
  });

  after(async function () {
    await Promise.all(instances.map((i) => i.stop()));
    await chain?.close();
    await db?.drop();
  });

  const validBefore = () => BigInt(Math.floor(Date.now() / 1000) + 600);

  it("reserves exactly 10 of 100 parallel verifies when the balance covers exactly 10 caps", async function () {
    const payloads = await Promise.all(
      Array.from({ length: 100 }, () =>
        signEscrowPayment({
          account: buyer,
          escrow: chain.addresses.escrow,
          resourceId,
          maxAmount: CAP,
          validBefore: validBefore(),
        }),
      ),
    );
    const results = await Promise.all(
      payloads.map((paymentPayload, i) =>
        postJson(`${instances[i % 2]!.url}/verify`, { paymentPayload, resourceId, maxTimeoutSeconds: 60 }),
      ),
    );
    const valid = results.filter((r) => r.body.isValid === true);
    const refused = results.filter((r) => r.body.isValid === false);
    expect(valid).to.have.length(10);
    expect(refused).to.have.length(90);
    expect(new Set(refused.map((r) => r.body.invalidReason))).to.deep.equal(new Set(["insufficient_balance"]));
    expect(new Set(valid.map((r) => r.status))).to.deep.equal(new Set([200]));

    for (const r of valid) {
      await postJson(`${instances[0]!.url}/release`, { idemKey: r.body.idemKey, resourceId });
    }
  });

  it("debits once when settles of one idemKey race on both instances", async function () {
    const payload = await signEscrowPayment({
      account: buyer,
      escrow: chain.addresses.escrow,
      resourceId,
      maxAmount: CAP,
      validBefore: validBefore(),
    });
    const verified = await postJson(`${instances[0]!.url}/verify`, {
      paymentPayload: payload,
      resourceId,
      maxTimeoutSeconds: 60,
    });
    expect(verified.body.isValid).to.equal(true);
    const before = await chain.contracts.escrow.read.balanceOf([buyer.address]);
    const settle = {
      idemKey: payload.authorization.nonce,
      resourceId,
      amount: "2000",
      response: { status: 200, contentType: "application/json", body: { ok: 1 } },
    };
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) => postJson(`${instances[i % 2]!.url}/settle`, settle)),
    );
    expect(answers.map((a) => a.status)).to.deep.equal(Array(12).fill(200));
    expect(new Set(answers.map((a) => JSON.stringify(a.body))).size).to.equal(1);
    expect(await chain.contracts.escrow.read.balanceOf([buyer.address])).to.equal(before - 2000n);
    const debits = await debitsOnChain(chain, { nonce: payload.authorization.nonce });
    expect(debits).to.have.length(1);
  });
});
