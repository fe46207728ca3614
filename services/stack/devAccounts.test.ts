import { expect } from "chai";
import { mnemonicToAccount, privateKeyToAccount } from "viem/accounts";
import { DEV_MNEMONIC, devKey, isDevKey } from "./devAccounts.ts";

describe("development accounts", function () {
  it("are Hardhat's well-known keys of the development mnemonic", function () {
    // Account 0 of `test test ... junk`, as every Hardhat and Anvil node prints it.
    expect(devKey(0)).to.equal("0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80");
    for (const index of [1, 5, 10, 19, 25]) {
      const expected = mnemonicToAccount(DEV_MNEMONIC, { addressIndex: index }).address;
      expect(privateKeyToAccount(devKey(index)).address, `account ${index}`).to.equal(expected);
    }
  });

  it("tells the first 20 development keys from any other key, in any case", function () {
    expect(isDevKey(devKey(19).toUpperCase().replace("0X", "0x"))).to.equal(true);
    expect(isDevKey(devKey(20))).to.equal(false);
    expect(isDevKey(`0x${"11".repeat(32)}`)).to.equal(false);
  });
});
