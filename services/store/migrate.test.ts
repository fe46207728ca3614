import { expect } from "chai";
import { splitStatements } from "./migrate.ts";

describe("splitStatements", function () {
  it("splits at semicolons that end a line", function () {
    expect(splitStatements("CREATE TABLE a (x INT);\n  CREATE INDEX a_x ON a (x);\n")).to.deep.equal([
      "CREATE TABLE a (x INT)",
      "CREATE INDEX a_x ON a (x)",
    ]);
  });

  it("keeps a dollar-quoted function body, semicolons and all, in one statement", function () {
    const fn = "CREATE FUNCTION f() RETURNS INT LANGUAGE plpgsql AS $$\nBEGIN\n  PERFORM 1;\n  RETURN 2;\nEND $$";
    expect(splitStatements(`ALTER TABLE a ADD COLUMN y INT;\n${fn};\nCREATE TABLE b (z INT)`)).to.deep.equal([
      "ALTER TABLE a ADD COLUMN y INT",
      fn,
      "CREATE TABLE b (z INT)",
    ]);
  });
});
