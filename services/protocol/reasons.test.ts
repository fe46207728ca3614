import { expect } from "chai";
import { ERROR_CODES, isVerifyReason, QUOTE_ERRORS, VERIFY_REASONS } from "./reasons.ts";

describe("reasons", () => {
  it("lists the verify reasons of SPEC.md", () => {
    expect(VERIFY_REASONS).to.deep.equal([
      "insufficient_balance",
      "nonce_used",
      "bad_signature",
      "expired",
      "over_cap",
    ]);
  });

  it("lets a quote carry every verify reason", () => {
    expect(QUOTE_ERRORS).to.include.members(["payment_required", "invalid_payload", ...VERIFY_REASONS]);
  });

  it("has unique snake_case codes", () => {
    const all = [...QUOTE_ERRORS, ...ERROR_CODES];
    expect(new Set(all).size).to.equal(all.length);
    for (const code of all) expect(code).to.match(/^[a-z]+(_[a-z]+)*$/);
  });

  it("names a failed publish stage", () =>
    expect(ERROR_CODES).to.include.members(["moderation_failed", "price_failed", "index_failed"]));

  it("recognises verify reasons only", () => {
    expect(isVerifyReason("over_cap")).to.equal(true);
    expect(isVerifyReason("payment_required")).to.equal(false);
    expect(isVerifyReason(undefined)).to.equal(false);
  });
});
