import { expect } from "chai";
import { isContentEncoded } from "./readJsonBody.ts";

describe("isContentEncoded", function () {
  it("takes gzip, br and a list of codings, in any case, as encoded", function () {
    for (const coding of ["gzip", "br", "GZIP", "deflate, gzip"])
      expect(isContentEncoded({ "content-encoding": coding }), coding).to.equal(true);
  });

  it("takes no header, an empty one and identity in any case as no encoding (Identity was refused 415)", function () {
    expect(isContentEncoded({})).to.equal(false);
    for (const coding of ["", "identity", "Identity", " IDENTITY "])
      expect(isContentEncoded({ "content-encoding": coding }), coding).to.equal(false);
  });
});
