import { expect } from "chai";
import fc from "fast-check";
import type { Hex } from "viem";
import { recoverAddress, toHex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { recoverSigner, recoveryBackend } from "./recoverSigner.ts";

describe("recoverSigner", function () {
  it("loads the native libsecp256k1 binding on this platform", function () {
    expect(recoveryBackend).to.equal("native");
  });

  it("recovers the same signer natively and in JS, for random keys and digests", async function () {
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ minLength: 32, maxLength: 32 }), async (digestBytes) => {
        const account = privateKeyToAccount(generatePrivateKey());
        const digest = toHex(digestBytes);
        const signature = await account.sign({ hash: digest });
        expect(await recoverSigner(digest, signature, "native")).to.equal(account.address);
        expect(await recoverSigner(digest, signature, "js")).to.equal(account.address);
        expect(await recoverAddress({ hash: digest, signature })).to.equal(account.address);
      }),
      { numRuns: 50 },
    );
  });

  it("answers null for a malformed signature instead of throwing", async function () {
    const digest = `0x${"11".repeat(32)}` as Hex;
    for (const backend of ["native", "js"] as const) {
      expect(await recoverSigner(digest, `0x${"00".repeat(65)}`, backend)).to.equal(null);
      expect(await recoverSigner(digest, `0x${"ff".repeat(64)}1b`, backend)).to.equal(null);
      expect(await recoverSigner(digest, "0x1234", backend)).to.equal(null);
    }
  });
});
