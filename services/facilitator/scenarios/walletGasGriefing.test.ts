import { expect } from "chai";
import type { Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { deployCostlyWallet } from "../../../testkit/chain/costlyWallet.ts";
import type { LocalChain } from "../../../testkit/chain/localChain.ts";
import { devKey, ROLE, startLocalChain } from "../../../testkit/chain/localChain.ts";
import { postJson, startFacilitator } from "../../../testkit/facilitator/startFacilitator.ts";
import { signEscrowPayment } from "../../buyer/src/sdk/signPayment.ts";

const CAP = 50_000n;
const response = { status: 200, contentType: "application/json", body: { ok: true } };
/** The escrow's ERC1271_GAS_LIMIT. */
const ERC1271_GAS_LIMIT = 500_000n;

/**
 * One contract-wallet buyer used to sink whole batches: the relayer budgeted 150k + 70k gas per item while the escrow
 * lets an ERC-1271 check use 500k, and `/verify` ran the check with no gas cap at all. A wallet whose check costs
 * ~300k (or anything up to the limit) passed verify, joined a batch with honest buyers and made the whole batch run
 * out of gas: every honest buyer in it got 503 and, retried, could be sunk again. The attacker needs nothing but a
 * funded wallet with an expensive `isValidSignature`.
 */
describe("a contract-wallet buyer in a batch of honest buyers", function () {
  let chain: LocalChain;
  let resourceId: Hex;
  const owner = privateKeyToAccount(generatePrivateKey());
  const buyer = privateKeyToAccount(devKey(ROLE.buyer));
  const validBefore = () => BigInt(Math.floor(Date.now() / 1000) + 600);

  /** Deploys a wallet whose check burns `burn` gas, funded in the escrow, and returns an account that signs for it. */
  const costlyWallet = (burn: bigint) => deployCostlyWallet(chain, owner, burn, CAP * 2n);

  before(async function () {
    chain = await startLocalChain();
    resourceId = await chain.registerResource({ slug: "echo", cap: CAP });
    await chain.fundBuyer(ROLE.buyer, 10_000_000n);
  });

  after(async function () {
    await chain?.close();
  });

  it("wallets whose checks cost 300k and just under the escrow's limit settle in one batch with three honest buyers, all 200", async function () {
    const facilitator = await startFacilitator(chain, { env: { BATCH_WINDOW_MS: "300" } });
    try {
      const costly = await costlyWallet(300_000n);
      const atLimit = await costlyWallet(ERC1271_GAS_LIMIT - 20_000n);
      const payer = (account: typeof buyer | Awaited<ReturnType<typeof costlyWallet>>) =>
        signEscrowPayment({
          account,
          escrow: chain.addresses.escrow,
          resourceId,
          maxAmount: CAP,
          validBefore: validBefore(),
        });
      const payloads = [
        await payer(costly),
        await payer(atLimit),
        await payer(buyer),
        await payer(buyer),
        await payer(buyer),
      ];
      for (const paymentPayload of payloads) {
        const v = await postJson(`${facilitator.url}/verify`, { paymentPayload, resourceId, maxTimeoutSeconds: 60 });
        expect(v.body).to.include({ isValid: true });
      }
      const settled = await Promise.all(
        payloads.map((p) =>
          postJson(`${facilitator.url}/settle`, {
            idemKey: p.authorization.nonce,
            resourceId,
            amount: "1000",
            response,
          }),
        ),
      );
      expect(settled.map((s) => s.status)).to.deep.equal([200, 200, 200, 200, 200]);
      expect(new Set(settled.map((s) => s.body.transaction)).size).to.equal(1);
      for (const wallet of [costly, atLimit])
        expect(await chain.contracts.escrow.read.balanceOf([wallet.address])).to.equal(CAP * 2n - 1_000n);
    } finally {
      await facilitator.stop();
    }
  });

  it("a wallet whose check costs more than the escrow's limit is refused at verify, as the escrow would refuse it", async function () {
    const facilitator = await startFacilitator(chain);
    try {
      const aboveLimit = await costlyWallet(ERC1271_GAS_LIMIT + 20_000n);
      const paymentPayload = await signEscrowPayment({
        account: aboveLimit,
        escrow: chain.addresses.escrow,
        resourceId,
        maxAmount: CAP,
        validBefore: validBefore(),
      });
      const v = await postJson(`${facilitator.url}/verify`, { paymentPayload, resourceId, maxTimeoutSeconds: 60 });
      expect(v.body).to.include({ isValid: false, invalidReason: "bad_signature" });
    } finally {
      await facilitator.stop();
    }
  });
});
