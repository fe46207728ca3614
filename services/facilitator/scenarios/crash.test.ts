import type { ChildProcess } from "node:child_process";
import { expect } from "chai";
import pg from "pg";
import type { Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import type { LocalChain } from "../../../testkit/chain/localChain.ts";
import { devKey, ROLE, startLocalChain } from "../../../testkit/chain/localChain.ts";
import { facilitatorEnv, postJson, spawnFacilitator } from "../../../testkit/facilitator/startFacilitator.ts";
import type { TestSchema } from "../../../testkit/postgres/testPostgres.ts";
import { testSchema } from "../../../testkit/postgres/testPostgres.ts";
import { sleep } from "../../../testkit/sleep.ts";
import { signEscrowPayment } from "../../buyer/src/sdk/signPayment.ts";

const CAP = 50_000n;

describe("a facilitator killed between verify and settle", function () {
  let chain: LocalChain;
  let resourceId: Hex;
  let db: TestSchema;
  const buyer = privateKeyToAccount(devKey(ROLE.buyer));
  const children: ChildProcess[] = [];

  before(async function () {
    db = await testSchema("facilitator_crash");
    chain = await startLocalChain();
    resourceId = await chain.registerResource({ slug: "echo", cap: CAP });
    await chain.fundBuyer(ROLE.buyer, 1_000_000n);
  });

  after(async function () {
    for (const child of children) child.kill("SIGKILL");
    await chain?.close();
    await db?.drop();
  });

  it("debits nothing after restart, and the reservation expires", async function () {
    const env = {
      ...facilitatorEnv(chain),
      DATABASE_URL: db.url,
      DATABASE_SCHEMA: db.schema,
      LOG_LEVEL: "info",
    };
    const first = await spawnFacilitator(env);
    children.push(first.child);
    const validBefore = BigInt(Math.floor(Date.now() / 1000) + 4);
    const payload = await signEscrowPayment({
      account: buyer,
      escrow: chain.addresses.escrow,
      resourceId,
      maxAmount: CAP,
      validBefore,
    });
    const verified = await postJson(`${first.url}/verify`, {
      paymentPayload: payload,
      resourceId,
      maxTimeoutSeconds: 1,
    });
    expect(verified.body.isValid).to.equal(true);
    const before = await chain.contracts.escrow.read.balanceOf([buyer.address]);

    first.child.kill("SIGKILL");
    await new Promise((resolve) => first.child.once("exit", resolve));

    const second = await spawnFacilitator(env);
    children.push(second.child);
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      const status = async () =>
        (
          await client.query(`SELECT status FROM ${db.schema}.reservation WHERE idem_key = $1`, [
            payload.authorization.nonce,
          ])
        ).rows[0]?.status;
      expect(await status()).to.equal("reserved");
      const deadline = Date.now() + 15_000;
      while ((await status()) !== "expired" && Date.now() < deadline) await sleep(200);
      expect(await status()).to.equal("expired");
    } finally {
      await client.end();
    }
    const settled = await postJson(`${second.url}/settle`, {
      idemKey: payload.authorization.nonce,
      resourceId,
      amount: "1000",
      response: { status: 200, contentType: "application/json", body: {} },
    });
    expect(settled.status).to.equal(409);
    expect(await chain.contracts.escrow.read.balanceOf([buyer.address])).to.equal(before);
    expect(await chain.contracts.escrow.read.nonceUsed([buyer.address, payload.authorization.nonce])).to.equal(false);
  });
});
