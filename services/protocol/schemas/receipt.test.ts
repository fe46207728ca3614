import { expect } from "chai";
import { validReceipt, withValue } from "../testing/fixtures.ts";
import { receiptSchema } from "./receipt.ts";

describe("receiptSchema", () => {
  it("accepts the escrow receipt", () => expect(receiptSchema.safeParse(validReceipt()).success).to.equal(true));

  it("accepts the exact receipt, split through the escrow too", () => {
    expect(receiptSchema.safeParse(withValue(validReceipt(), ["scheme"], "exact")).success).to.equal(true);
  });

  it("rejects an extra property", () =>
    expect(receiptSchema.safeParse(withValue(validReceipt(), ["extra"], 1)).success).to.equal(false));

  const invalid: [string, string, unknown][] = [
    ["a failed receipt", "success", false],
    ["another network", "network", "eip155:1"],
    ["a short transaction hash", "transaction", "0x1234"],
    ["a payTo that is an address", "payTo", `0x${"12".repeat(20)}`],
    ["an amount with a leading zero", "amount", "01200"],
    ["legs that do not add up", "treasuryAmount", "61"],
    ["a missing creator leg", "creatorAmount", undefined],
    ["a unix settledAt", "settledAt", "1767225600"],
    ["a non-decimal amount", "amount", "abc"],
  ];
  for (const [name, key, value] of invalid) {
    it(`rejects ${name}`, () =>
      expect(receiptSchema.safeParse(withValue(validReceipt(), [key], value)).success).to.equal(false));
  }
});
