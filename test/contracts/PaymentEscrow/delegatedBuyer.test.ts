import { expect } from "chai";
import { createWalletClient, custom, getAddress, parseEventLogs } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import type { Signer } from "../fixtures.ts";
import { debitLogs, deployFundedEscrow, mined, networkHelpers, nonceOf, signedDebit, USDC } from "../fixtures.ts";

/**
 * A buyer whose account delegates to code (EIP-7702) still holds its key. The facilitator accepts the key's
 * signature (checkSignature tries recovery first), so the escrow must too: were it to ask only the delegate's
 * ERC-1271, which need not exist, the debit would be skipped after the handler ran and the call would go unpaid.
 */
describe("a buyer account that delegates to code (EIP-7702)", function () {
  async function setup() {
    const stack = await networkHelpers.loadFixture(deployFundedEscrow);
    const account = privateKeyToAccount(generatePrivateKey());
    const signer = createWalletClient({
      account,
      chain: stack.publicClient.chain,
      transport: custom({ request: (args) => stack.publicClient.request(args as never) }),
    });
    // Delegate to a contract that has no isValidSignature (the token), sent and paid for by the admin.
    const authorization = await signer.signAuthorization({ contractAddress: stack.token.address });
    // (Sent to an account without code: the authorization list takes effect whatever the call does.)
    await mined(
      stack,
      stack.accounts.admin.sendTransaction({
        to: stack.accounts.other.account.address,
        authorizationList: [authorization],
      }),
    );
    const { admin } = stack.accounts;
    await mined(stack, stack.token.write.mint([admin.account.address, USDC], { account: admin.account }));
    await mined(stack, stack.token.write.approve([stack.escrow.address, USDC], { account: admin.account }));
    await mined(stack, stack.escrow.write.depositFor([account.address, USDC], { account: admin.account }));
    return { ...stack, buyer: getAddress(account.address), signer: signer as unknown as Signer };
  }

  it("has code: the delegation designator", async function () {
    const { publicClient, buyer, token } = await setup();
    expect(await publicClient.getCode({ address: buyer })).to.equal(`0xef0100${token.address.slice(2).toLowerCase()}`);
  });

  it("is debited on its key's signature", async function () {
    const stack = await setup();
    const item = await signedDebit(stack, {
      resourceId: stack.resourceId,
      buyer: stack.buyer,
      nonce: nonceOf("delegated"),
      amount: 1_000n,
      signer: stack.signer,
    });
    const receipt = await mined(
      stack,
      stack.escrow.write.debitBatch([[item]], { account: stack.accounts.relayer.account }),
    );
    expect(parseEventLogs({ abi: stack.escrow.abi, eventName: "DebitSkipped", logs: receipt.logs })).to.have.length(0);
    expect(debitLogs(stack.escrow, receipt.logs)).to.have.length(1);
    expect(await stack.escrow.read.balanceOf([stack.buyer])).to.equal(USDC - 1_000n);
  });

  it("is not debited on a signature by another key", async function () {
    const stack = await setup();
    const item = await signedDebit(stack, {
      resourceId: stack.resourceId,
      buyer: stack.buyer,
      nonce: nonceOf("forged"),
      amount: 1_000n,
    });
    const receipt = await mined(
      stack,
      stack.escrow.write.debitBatch([[item]], { account: stack.accounts.relayer.account }),
    );
    expect(parseEventLogs({ abi: stack.escrow.abi, eventName: "DebitSkipped", logs: receipt.logs })).to.have.length(1);
    expect(await stack.escrow.read.balanceOf([stack.buyer])).to.equal(USDC);
  });
});
