import { expect } from "chai";
import { bearerTokenOf } from "./bearerToken.ts";

describe("bearerTokenOf", function () {
  for (const [header, token] of [
    ["Bearer abc", "abc"],
    ["bearer abc", "abc"],
    ["BEARER abc", "abc"],
    ["Bearer   abc ", "abc"],
  ] as const) {
    it(`reads ${JSON.stringify(header)}: the scheme in any case`, function () {
      expect(bearerTokenOf(header)).to.equal(token);
    });
  }

  for (const header of [undefined, "", "Bearer", "Bearer ", "Basic abc", "Bearerabc", "Bearer a b", "xBearer abc"]) {
    it(`reads no token in ${JSON.stringify(header)}`, function () {
      expect(bearerTokenOf(header)).to.equal(undefined);
    });
  }
});
