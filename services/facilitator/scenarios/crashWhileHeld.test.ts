import type { ChildProcess } from "node:child_process";
import { expect } from "chai";
import type { Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import type { LocalChain } from "../../../testkit/chain/localChain.ts";
import { devKey, ROLE, startLocalChain } from "../../../testkit/chain/localChain.ts";
import { committedHarness } from "../../../testkit/facilitator/committedHarness.ts";
import { facilitatorEnv, getJson, spawnFacilitator } from "../../../testkit/facilitator/startFacilitator.ts";
import type { TestSchema } from "../../../testkit/postgres/testPostgres.ts";
import { testSchema } from "../../../testkit/postgres/testPostgres.ts";
import { until } from "../../../testkit/until.ts";
import { bitmapNonce } from "../../protocol/bitmapNonce.ts";
import { BASE_FEE_FLOOR_WEI } from "../../protocol/constants.ts";

const CAP = 50_000n;
/**
 * One debit of this (of a bitmap nonce) pays the treasury 1,000 against about 1,400 of gas at the floor, two 2,000
 * against about 1,700: short of the 20% margin, so the relayer holds them.
 */
const AMOUNT = 20_000n;

describe("a facilitator killed while it holds committed debits", function () {
  let chain: LocalChain;
  let resourceId: Hex;
  let db: TestSchema;
  let h: ReturnType<typeof committedHarness>;
  const buyer = privateKeyToAccount(devKey(ROLE.buyer));
  const children: ChildProcess[] = [];

  before(async function () {
    db = await testSchema("facilitator_crash_held");
    chain = await startLocalChain();
    // Priced above the floor at 20 gwei (7,680 for a debit of a bitmap nonce), or verify refuses its payments.
    resourceId = await chain.registerResource({ slug: "echo", cap: CAP, base: 8_000n });
    await chain.fundBuyer(ROLE.buyer, 1_000_000n);
    await chain.setBaseFee(BASE_FEE_FLOOR_WEI);
    h = committedHarness({ chain, buyer, resourceId, cap: CAP });
  });

  after(async function () {
    for (const child of children) child.kill("SIGKILL");
    await chain?.close();
    await db?.drop();
  });

  it("loses none of them: the restart sends each once", async function () {
    const env = {
      ...facilitatorEnv(chain),
      DATABASE_URL: db.url,
      DATABASE_SCHEMA: db.schema,
      SETTLEMENT: "committed",
      HOLD_MAX_SECONDS: "3600",
      // Two debits of AMOUNT lose with a 20% margin at the floor but pay together without one (HOLD_MARGIN_BPS's
      // default, 0): they must stay held until the crash.
      HOLD_MARGIN_BPS: "2000",
      // The restart's retrier takes the crashed instance's debits over a second after their lease; the holding
      // instance's own retrier meanwhile finds them held and leaves them be.
      SETTLE_LEASE_SECONDS: "1",
      // The restart sends from the crashed instance's signer once its lease has expired.
      SIGNER_LEASE_SECONDS: "2",
    };
    const first = await spawnFacilitator(env);
    children.push(first.child);
    const paid = [
      await h.pay(first.url, AMOUNT, { nonce: bitmapNonce(2 ** 31) }),
      await h.pay(first.url, AMOUNT, { nonce: bitmapNonce(2 ** 31 + 1) }),
    ];
    const nonces = paid.map((p) => p.payload.authorization.nonce);
    for (const { settled } of paid) expect(settled.body).to.include({ status: "committed" });
    for (const nonce of nonces)
      await until(async () => ((await getJson(`${first.url}/results/${nonce}`)).body.held === true ? true : undefined));
    const before = await h.balance();

    first.child.kill("SIGKILL");
    await new Promise((resolve) => first.child.once("exit", resolve));
    for (const nonce of nonces) expect(await h.debitsOf(nonce), "nothing was sent before the crash").to.have.length(0);

    // The restart holds nothing, so the two go out at once.
    const second = await spawnFacilitator({ ...env, HOLD_MAX_SECONDS: "0" });
    children.push(second.child);
    for (const nonce of nonces) await h.resultWhen(second.url, nonce, "confirmed");
    for (const nonce of nonces) expect(await h.debitsOf(nonce)).to.have.length(1);
    expect(await h.balance()).to.equal(before - 2n * AMOUNT);
  });
});
