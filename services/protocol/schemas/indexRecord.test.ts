import { expect } from "chai";
import { creator, validIndexRecord, without, withValue } from "../../../testkit/protocol/fixtures.ts";
import { indexRecordSchema } from "./indexRecord.ts";

describe("indexRecordSchema", () => {
  it("accepts a record", () => expect(indexRecordSchema.safeParse(validIndexRecord()).success).to.equal(true));

  it("accepts a record without a creator", () =>
    expect(indexRecordSchema.safeParse(without(validIndexRecord(), ["creator"])).success).to.equal(true));

  it("checksums the creator", () => {
    expect(indexRecordSchema.parse(withValue(validIndexRecord(), ["creator"], creator.toLowerCase())).creator).to.equal(
      creator,
    );
  });

  for (const path of [[], ["pricing"], ["health"]]) {
    it(`rejects an extra property at ${path.join(".") || "the top level"}`, () => {
      expect(indexRecordSchema.safeParse(withValue(validIndexRecord(), [...path, "extra"], 1)).success).to.equal(false);
    });
  }

  const invalid: [string, string[], unknown][] = [
    ["a missing agentId", ["agentId"], undefined],
    ["an upper-case slug", ["slug"], "Weather"],
    ["a slug with a path", ["slug"], "../weather"],
    ["a slug with a double dash", ["slug"], "a--b"],
    ["a slug over 64 characters", ["slug"], "a".repeat(65)],
    ["another pricing model", ["pricing", "model"], "flat"],
    ["a bond with a leading zero", ["bond"], "01"],
    ["a bond above uint256", ["bond"], (2n ** 256n).toString()],
    ["a fractional base price", ["pricing", "base"], "1.5"],
    ["a reputation above 100", ["reputation"], 101],
    ["a negative uptime", ["uptime"], -1],
    ["a relative cardUrl", ["cardUrl"], "/card.json"],
    ["a string active flag", ["active"], "true"],
    ["a malformed resourceId", ["resourceId"], "0x1234"],
  ];
  for (const [name, path, value] of invalid) {
    it(`rejects ${name}`, () =>
      expect(indexRecordSchema.safeParse(withValue(validIndexRecord(), path, value)).success).to.equal(false));
  }
});
