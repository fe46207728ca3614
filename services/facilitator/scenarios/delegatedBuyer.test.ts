import { expect } from "chai";
import type { Hex } from "viem";
import { createWalletClient, custom } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import type { LocalChain } from "../../../testkit/chain/localChain.ts";
import { ROLE, startLocalChain } from "../../../testkit/chain/localChain.ts";
import { postJson, startFacilitator } from "../../../testkit/facilitator/startFacilitator.ts";
import { signEscrowPayment, signExactPayment } from "../../buyer/src/sdk/signPayment.ts";
import { parseDebits } from "../../protocol/parseDebits.ts";

const CAP = 50_000n;

/**
 * Verify must judge a signature as the contract that will check it does. For a buyer whose account delegates to
 * code (EIP-7702) the two contracts differ: the escrow accepts the buyer's key, the token (OpenZeppelin's
 * SignatureChecker) asks the delegate's ERC-1271. Delegated here to the token, which has no isValidSignature.
 */
describe("verify for a buyer account that delegates to code (EIP-7702)", function () {
  let chain: LocalChain;
  let facilitator: Awaited<ReturnType<typeof startFacilitator>>;
  let resourceId: Hex;
  const account = privateKeyToAccount(generatePrivateKey());
  const validBefore = () => BigInt(Math.floor(Date.now() / 1000) + 600);

  before(async function () {
    chain = await startLocalChain();
    resourceId = await chain.registerResource({ slug: "echo", cap: CAP });
    const signer = createWalletClient({
      account,
      chain: chain.publicClient.chain,
      transport: custom({ request: (args) => chain.publicClient.request(args as never) }),
    });
    const authorization = await signer.signAuthorization({ contractAddress: chain.addresses.token });
    const admin = chain.wallets[ROLE.admin]!;
    const delegation = await admin.sendTransaction({
      to: chain.address(ROLE.other),
      authorizationList: [authorization],
    });
    await chain.publicClient.waitForTransactionReceipt({ hash: delegation });
    expect(await chain.publicClient.getCode({ address: account.address })).to.match(/^0xef0100/);
    const { token, escrow } = chain.contracts;
    await token.write.mint([chain.address(ROLE.admin), CAP * 4n]);
    await token.write.approve([escrow.address, CAP * 2n]);
    await escrow.write.depositFor([account.address, CAP * 2n]);
    await token.write.mint([account.address, CAP * 2n]);
    facilitator = await startFacilitator(chain);
  });

  after(async function () {
    await facilitator?.stop();
    await chain?.close();
  });

  it("service-escrow: accepts the buyer's key, and the escrow debits it", async function () {
    const paymentPayload = await signEscrowPayment({
      account,
      escrow: chain.addresses.escrow,
      resourceId,
      maxAmount: CAP,
      validBefore: validBefore(),
    });
    const verified = await postJson(`${facilitator.url}/verify`, { paymentPayload, resourceId, maxTimeoutSeconds: 60 });
    expect(verified.body).to.include({ isValid: true });
    const settled = await postJson(`${facilitator.url}/settle`, {
      idemKey: paymentPayload.authorization.nonce,
      resourceId,
      amount: "1200",
      response: { status: 200, contentType: "application/json", body: { ok: 1 } },
    });
    expect(settled.status).to.equal(200);
    const receipt = await chain.publicClient.getTransactionReceipt({ hash: settled.body.transaction });
    expect(parseDebits(receipt.logs, chain.addresses.escrow)).to.have.length(1);
  });

  it("exact: refuses with bad_signature, as the token would refuse the transfer", async function () {
    const paymentPayload = await signExactPayment({
      account,
      token: chain.addresses.token,
      escrow: chain.addresses.escrow,
      value: CAP,
      validBefore: validBefore(),
    });
    const verified = await postJson(`${facilitator.url}/verify`, { paymentPayload, resourceId, maxTimeoutSeconds: 60 });
    expect(verified.body).to.include({ isValid: false, invalidReason: "bad_signature" });
  });
});
