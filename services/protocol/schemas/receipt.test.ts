import { expect } from "chai";
import { validReceipt, withValue } from "../../../testkit/protocol/fixtures.ts";
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

  describe("committed and confirmed", () => {
    const settlementId = `0x${"5e".repeat(32)}`;
    const committed = () => ({ ...validReceipt(), status: "committed", settlementId, transaction: undefined });

    it("accepts a committed receipt: a settlementId and no transaction yet", () =>
      expect(receiptSchema.safeParse(committed()).success).to.equal(true));

    it("accepts the confirmed receipt of the same settlement, with its transaction", () =>
      expect(receiptSchema.safeParse({ ...validReceipt(), status: "confirmed", settlementId }).success).to.equal(true));

    const refused: [string, Record<string, unknown>][] = [
      ["a committed receipt that names a transaction", { ...committed(), transaction: `0x${"cd".repeat(32)}` }],
      ["a committed receipt without a settlementId", { ...committed(), settlementId: undefined }],
      ["a committed exact receipt (exact waits for its transfer)", { ...committed(), scheme: "exact" }],
      ["a confirmed receipt without a transaction", { ...validReceipt(), status: "confirmed", transaction: undefined }],
      ["a receipt without status or transaction", { ...validReceipt(), transaction: undefined }],
      ["an unknown status", { ...validReceipt(), status: "pending" }],
    ];
    for (const [name, receipt] of refused) {
      it(`rejects ${name}`, () => expect(receiptSchema.safeParse(receipt).success).to.equal(false));
    }
  });
});
