import { expect } from "chai";
import type { Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import type { LocalChain } from "../../../testkit/chain/localChain.ts";
import { devKey, ROLE, startLocalChain } from "../../../testkit/chain/localChain.ts";
import { signExactToEscrow } from "../../../testkit/facilitator/signExactToEscrow.ts";
import { postJson, startFacilitator } from "../../../testkit/facilitator/startFacilitator.ts";

const CAP = 50_000n;

/**
 * Replay of an intercepted `exact` payment at another resource of the same price. Without the binding, whoever sees a
 * buyer's `X-PAYMENT` (a proxy, a log) presents it at a resource of their own: the facilitator reserves it there, runs
 * that handler and settles the buyer's money to its creator, and the buyer's real call then fails `nonce_used`.
 */
describe("exact payment replayed at another resource", function () {
  let chain: LocalChain;
  let resourceId: Hex;
  let attackersResource: Hex;
  const buyer = privateKeyToAccount(devKey(ROLE.buyer));

  before(async function () {
    chain = await startLocalChain();
    resourceId = await chain.registerResource({ slug: "echo", cap: CAP });
    attackersResource = await chain.registerResource({ slug: "same-price", cap: CAP, creatorIndex: ROLE.other });
    await chain.contracts.token.write.mint([buyer.address, CAP * 4n]);
  });

  after(async function () {
    await chain?.close();
  });

  it("a payment signed by our SDK for one resource is refused at another resource's verify, and accepted at its own", async function () {
    const facilitator = await startFacilitator(chain);
    try {
      const paymentPayload = await signExactToEscrow(chain, { account: buyer, value: CAP, resourceId });
      const replayed = await postJson(`${facilitator.url}/verify`, {
        paymentPayload,
        resourceId: attackersResource,
        maxTimeoutSeconds: 60,
      });
      expect(replayed.body).to.include({ isValid: false, invalidReason: "invalid_payload" });
      const own = await postJson(`${facilitator.url}/verify`, { paymentPayload, resourceId, maxTimeoutSeconds: 60 });
      expect(own.body).to.include({ isValid: true });
    } finally {
      await facilitator.stop();
    }
  });
});
