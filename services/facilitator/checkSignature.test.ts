import { expect } from "chai";
import type { Address, Hex } from "viem";
import { keccak256, toHex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { checkSignature } from "./checkSignature.ts";

/** A chain view where `withCode` has code and its ERC-1271 answers `erc1271`; every question is counted. */
function chainWith(withCode: Address | null, erc1271: boolean) {
  const asked: string[] = [];
  return {
    asked,
    chain: {
      isContract: async (address: Address) => {
        asked.push("isContract");
        return address === withCode;
      },
      isValidErc1271: async () => {
        asked.push("isValidErc1271");
        return erc1271;
      },
    },
  };
}

describe("checkSignature", function () {
  const account = privateKeyToAccount(generatePrivateKey());
  const digest = keccak256(toHex("a debit"));
  let signature: Hex;
  before(async function () {
    signature = await account.sign({ hash: digest });
  });

  it("accepts an account's own key without asking the chain, under either rule", async function () {
    for (const rule of ["key-first", "code-first"] as const) {
      const { chain, asked } = chainWith(null, false);
      expect(await checkSignature({ chain, signer: account.address, digest, signature, rule }), rule).to.equal("key");
      expect(asked, rule).to.deep.equal(rule === "key-first" ? [] : ["isContract"]);
    }
  });

  it("key-first (the escrow): accepts the key of an account that delegates to code (EIP-7702)", async function () {
    const { chain } = chainWith(account.address, false);
    expect(await checkSignature({ chain, signer: account.address, digest, signature, rule: "key-first" })).to.equal(
      "key",
    );
  });

  it("code-first (EIP-3009 on the token): an account with code answers through ERC-1271 only", async function () {
    expect(
      await checkSignature({
        chain: chainWith(account.address, false).chain,
        signer: account.address,
        digest,
        signature,
        rule: "code-first",
      }),
    ).to.equal(false);
    expect(
      await checkSignature({
        chain: chainWith(account.address, true).chain,
        signer: account.address,
        digest,
        signature,
        rule: "code-first",
      }),
    ).to.equal("contract");
  });

  it("refuses another key's signature for an account without code, under either rule", async function () {
    const other = await privateKeyToAccount(generatePrivateKey()).sign({ hash: digest });
    for (const rule of ["key-first", "code-first"] as const) {
      expect(
        await checkSignature({
          chain: chainWith(null, true).chain,
          signer: account.address,
          digest,
          signature: other,
          rule,
        }),
        rule,
      ).to.equal(false);
    }
  });
});
