import { expect } from "chai";
import type { Hex } from "viem";
import { concatHex, encodeErrorResult, hexToBigInt, numberToHex, parseEventLogs, recoverAddress, sliceHex } from "viem";
import {
  debitLogs,
  deployFundedEscrow,
  mined,
  mintTokens,
  networkHelpers,
  signExactPayment,
  signedDebit,
  USDC,
  viem,
} from "../fixtures.ts";

/** Order of the secp256k1 group. */
const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

/** The other valid ECDSA signature of the same digest: s' = n - s with the recovery bit flipped (high s). */
function highS(signature: Hex): Hex {
  const r = sliceHex(signature, 0, 32);
  const s = hexToBigInt(sliceHex(signature, 32, 64));
  const v = Number(hexToBigInt(sliceHex(signature, 64, 65)));
  return concatHex([r, numberToHex(N - s, { size: 32 }), numberToHex(v === 27 ? 28 : 27, { size: 1 })]);
}

/**
 * ECDSA signatures are malleable: (r, n - s) verifies as well as (r, s). The escrow keys debits by nonce, not by
 * signature, and accepts only low-s signatures, so a malleated copy can neither debit twice nor debit at all.
 */
describe("malleable (high-s) signatures", function () {
  async function setup() {
    const stack = await networkHelpers.loadFixture(deployFundedEscrow);
    return { ...stack, buyer: stack.accounts.buyer, relayerAccount: { account: stack.accounts.relayer.account } };
  }

  it("highS yields a second signature that recovers to the buyer off chain", async function () {
    const stack = await setup();
    const item = await signedDebit(stack, { resourceId: stack.resourceId });
    const digest = await stack.escrow.read.hashDebitAuthorization([item.authorization]);
    const malleated = highS(item.signature);
    expect(malleated).to.not.equal(item.signature);
    expect(hexToBigInt(sliceHex(malleated, 32, 64)) > N / 2n).to.equal(true);
    expect((await recoverAddress({ hash: digest, signature: malleated })).toLowerCase()).to.equal(
      stack.buyer.account.address.toLowerCase(),
    );
  });

  describe("when the relayer submits the high-s twin of a valid signature", function () {
    it("reverts InvalidSignature(buyer) and spends neither nonce nor balance", async function () {
      const stack = await setup();
      const item = await signedDebit(stack, { resourceId: stack.resourceId, amount: 1_000n });
      await viem.assertions.revertWithCustomErrorWithArgs(
        stack.escrow.write.debit([{ ...item, signature: highS(item.signature) }], stack.relayerAccount),
        stack.escrow,
        "InvalidSignature",
        [stack.buyer.account.address],
      );
      expect(await stack.escrow.read.nonceUsed([stack.buyer.account.address, item.authorization.nonce])).to.equal(
        false,
      );
      expect(await stack.escrow.read.balanceOf([stack.buyer.account.address])).to.equal(100n * USDC);
      await viem.assertions.emit(stack.escrow.write.debit([item], stack.relayerAccount), stack.escrow, "BatchDebited");
    });

    it("reverts NonceAlreadyUsed(buyer, nonce) after the original was debited: the nonce, not the signature, is the key", async function () {
      const stack = await setup();
      const item = await signedDebit(stack, { resourceId: stack.resourceId, amount: 1_000n });
      await mined(stack, stack.escrow.write.debit([item], stack.relayerAccount));
      await viem.assertions.revertWithCustomErrorWithArgs(
        stack.escrow.write.debit([{ ...item, signature: highS(item.signature) }], stack.relayerAccount),
        stack.escrow,
        "NonceAlreadyUsed",
        [stack.buyer.account.address, item.authorization.nonce],
      );
    });

    it("skips it in a batch with DebitSkipped(..., InvalidSignature(buyer)) while the original settles once", async function () {
      const stack = await setup();
      const item = await signedDebit(stack, { resourceId: stack.resourceId, amount: 1_000n });
      const receipt = await mined(
        stack,
        stack.escrow.write.debitBatch([[{ ...item, signature: highS(item.signature) }, item]], stack.relayerAccount),
      );
      const skipped = parseEventLogs({ abi: stack.escrow.abi, eventName: "DebitSkipped", logs: receipt.logs });
      const debited = debitLogs(stack.escrow, receipt.logs);
      expect(skipped.map((log) => log.args.reason)).to.deep.equal([
        encodeErrorResult({
          abi: stack.escrow.abi,
          errorName: "InvalidSignature",
          args: [stack.buyer.account.address],
        }),
      ]);
      expect(debited).to.have.length(1);
      expect(await stack.escrow.read.balanceOf([stack.buyer.account.address])).to.equal(100n * USDC - 1_000n);
    });
  });

  describe("when the signature has another encoding of the same (r, s)", function () {
    it("reverts InvalidSignature(buyer) for v = 0/1 instead of 27/28", async function () {
      const stack = await setup();
      const item = await signedDebit(stack, { resourceId: stack.resourceId });
      const v = Number(hexToBigInt(sliceHex(item.signature, 64, 65)));
      const rawV = concatHex([sliceHex(item.signature, 0, 64), numberToHex(v - 27, { size: 1 })]);
      await viem.assertions.revertWithCustomErrorWithArgs(
        stack.escrow.write.debit([{ ...item, signature: rawV }], stack.relayerAccount),
        stack.escrow,
        "InvalidSignature",
        [stack.buyer.account.address],
      );
    });

    it("reverts InvalidSignature(buyer) for the 64-byte EIP-2098 compact form", async function () {
      const stack = await setup();
      const item = await signedDebit(stack, { resourceId: stack.resourceId });
      const r = sliceHex(item.signature, 0, 32);
      const s = hexToBigInt(sliceHex(item.signature, 32, 64));
      const yParity = BigInt(Number(hexToBigInt(sliceHex(item.signature, 64, 65))) - 27);
      const compact = concatHex([r, numberToHex((yParity << 255n) | s, { size: 32 })]);
      await viem.assertions.revertWithCustomErrorWithArgs(
        stack.escrow.write.debit([{ ...item, signature: compact }], stack.relayerAccount),
        stack.escrow,
        "InvalidSignature",
        [stack.buyer.account.address],
      );
    });
  });

  describe("on the exact path", function () {
    it("lets the token refuse a high-s transfer signature: \"invalid signature 's' value\"", async function () {
      const stack = await setup();
      await mintTokens(stack, stack.buyer.account.address, USDC);
      const payment = await signExactPayment(stack, stack.buyer, { resourceId: stack.resourceId, value: 1_000n });
      await viem.assertions.revertWith(
        stack.escrow.write.settleExact([{ ...payment, signature: highS(payment.signature) }], stack.relayerAccount),
        "ECRecover: invalid signature 's' value",
      );
    });
  });
});
