import { expect } from "chai";
import { ERROR_CODES } from "../reasons.ts";
import { errorBody, errorBodySchema } from "./errorBody.ts";

describe("errorBody", () => {
  it("builds { error: { code, message } }", () => {
    expect(errorBody("no_reservation", "No reservation for this idemKey.")).to.deep.equal({
      error: { code: "no_reservation", message: "No reservation for this idemKey." },
    });
  });

  it("builds bodies its schema accepts for every shared code", () => {
    for (const code of ERROR_CODES)
      expect(errorBodySchema.safeParse(errorBody(code, "Something went wrong.")).success).to.equal(true);
  });

  const invalid = {
    "an extra top-level property": { error: { code: "not_found", message: "Gone." }, status: 404 },
    "an extra nested property": { error: { code: "not_found", message: "Gone.", status: 404 } },
    "a code that is not snake_case": { error: { code: "Not-Found", message: "Gone." } },
    "an empty message": { error: { code: "not_found", message: "" } },
    "a bare string": { error: "not_found" },
  };
  for (const [name, body] of Object.entries(invalid)) {
    it(`rejects ${name}`, () => expect(errorBodySchema.safeParse(body).success).to.equal(false));
  }
});
