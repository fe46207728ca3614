import { expect } from "chai";
import { BaseError, InvalidBase64Error, InvalidPriceInputError, SchemaValidationError } from "./errors.ts";

describe("errors", () => {
  it("puts details after the short message and keeps the cause", () => {
    const cause = new Error("root");
    const error = new BaseError("Something failed.", { details: "because", cause });
    expect(error.shortMessage).to.equal("Something failed.");
    expect(error.message).to.equal("Something failed.\n\nDetails: because");
    expect(error.cause).to.equal(cause);
  });

  it("has a bare message without details", () => expect(new BaseError("Plain.").message).to.equal("Plain."));

  it("names each subclass and keeps it a BaseError", () => {
    const errors = [
      new InvalidBase64Error("x"),
      new InvalidPriceInputError("cap", -1n, "an amount"),
      new SchemaValidationError("card", "x"),
    ];
    expect(errors.map((error) => error.name)).to.deep.equal([
      "InvalidBase64Error",
      "InvalidPriceInputError",
      "SchemaValidationError",
    ]);
    for (const error of errors) expect(error).to.be.instanceOf(BaseError);
  });

  it("carries the offending price input", () => {
    const error = new InvalidPriceInputError("cap", -1n, "an amount");
    expect([error.parameter, error.value]).to.deep.equal(["cap", -1n]);
    expect(error.message).to.include("cap = -1");
  });
});
