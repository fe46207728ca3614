import { expect } from "chai";
import type { Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import type { LocalChain } from "../../../testkit/chain/localChain.ts";
import { devKey, startLocalChain } from "../../../testkit/chain/localChain.ts";
import { committedHarness, RESPONSE } from "../../../testkit/facilitator/committedHarness.ts";
import { getJson, postJson, startFacilitator } from "../../../testkit/facilitator/startFacilitator.ts";
import { testStoreEnv } from "../../../testkit/postgres/testPostgres.ts";

const CAP = 50_000n;

/**
 * A nonce is the buyer's own (the escrow spends it per buyer), but the store keyed reservations by the nonce alone.
 * Nonces are public (every `Debited` log carries one, and the SDK allocates them word by word, so the next ones are
 * easy to guess): another buyer who reserved a victim's next nonce first, with a payment of its own, made every
 * payment of the victim with that nonce `nonce_used`, for as long as the squatter's row was kept. Now a reservation
 * is the buyer's and the nonce's, and the routes that name a reservation take the payer.
 */
describe("another buyer squatting a victim's nonce", function () {
  let chain: LocalChain;
  let resourceId: Hex;
  const victim = privateKeyToAccount(devKey(18));
  const squatter = privateKeyToAccount(devKey(19));
  const drops: (() => Promise<void>)[] = [];

  before(async function () {
    chain = await startLocalChain();
    resourceId = await chain.registerResource({ slug: "echo-squat", cap: CAP });
    await chain.fundBuyer(18, 1_000_000n);
    await chain.fundBuyer(19, 1_000_000n);
  });

  after(async function () {
    await chain?.close();
    for (const drop of drops) await drop();
  });

  for (const name of ["PGlite", "PostgreSQL"] as const) {
    it(`cannot block the victim's payment with that nonce (${name})`, async function () {
      const db = await testStoreEnv(name, "facilitator_squat");
      drops.push(db.drop);
      const facilitator = await startFacilitator(chain, { env: db.env });
      const mine = committedHarness({ chain, buyer: victim, resourceId, cap: CAP });
      const theirs = committedHarness({ chain, buyer: squatter, resourceId, cap: CAP });
      try {
        const victimPayment = await mine.sign();
        const nonce = victimPayment.authorization.nonce;
        const squat = await theirs.verify(facilitator.url, await theirs.sign({ nonce }));
        expect(squat.body).to.include({ isValid: true });

        const verified = await mine.verify(facilitator.url, victimPayment);
        expect(verified.body, "the victim's own nonce").to.include({ isValid: true });

        const unnamed = await postJson(`${facilitator.url}/settle`, {
          idemKey: nonce,
          resourceId,
          amount: "1000",
          response: RESPONSE,
        });
        expect(unnamed.status).to.equal(409);
        expect(unnamed.body.error.code).to.equal("payer_required");

        const settled = await postJson(`${facilitator.url}/settle`, {
          idemKey: nonce,
          resourceId,
          payer: victim.address,
          amount: "1000",
          response: RESPONSE,
        });
        expect(settled.status).to.equal(200);
        expect(settled.body.payer).to.equal(victim.address);
        const released = await postJson(`${facilitator.url}/release`, {
          idemKey: nonce,
          resourceId,
          payer: squatter.address,
        });
        expect(released.body).to.include({ released: true });

        const result = await getJson(`${facilitator.url}/results/${nonce}?payer=${victim.address}`);
        expect(mine.receiptOf(result.body).payer).to.equal(victim.address);
        expect((await mine.debitsOf(nonce)).map((d) => d.amount)).to.deep.equal([1_000n]);
        const again = await mine.verify(facilitator.url, await mine.sign({ nonce }));
        expect(again.body, "the victim's nonce is spent now").to.include({ invalidReason: "nonce_used" });
      } finally {
        await facilitator.stop();
      }
    });
  }
});
