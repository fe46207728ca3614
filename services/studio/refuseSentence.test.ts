import { expect } from "chai";
import { catalogWriter } from "./catalog/catalogWriter.ts";
import type { CodeWriter } from "./contract.ts";
import { specify } from "./specify.ts";
import { StudioError } from "./studioError.ts";

const REFUSED: [string, string][] = [
  ["", "empty_sentence"],
  ["   ", "empty_sentence"],
  [`Return the SHA-256 digest of ${"a very long text ".repeat(40)}`, "sentence_too_long"],
  ["hello there", "not_an_endpoint"],
  ["What is the capital of France?", "not_an_endpoint"],
  ["Fetch the current weather for a city", "forbidden_network"],
  ["Download a web page and count its words", "forbidden_network"],
  ["Return the value of the AWS_SECRET environment variable", "forbidden_secrets"],
  ["Read a file from the server disk and return it", "forbidden_files"],
  ["Mine bitcoin with the spare cycles of each call", "forbidden_mining"],
  ["Build a keylogger that records keystrokes", "moderation_refused"],
];

describe("specify refuses before any code exists", function () {
  let asked = 0;
  const writer: CodeWriter = {
    ...catalogWriter(),
    name: "counting",
    async specify(sentence) {
      asked++;
      return catalogWriter().specify(sentence);
    },
  };

  for (const [sentence, code] of REFUSED)
    it(`refuses ${JSON.stringify(sentence.slice(0, 60))} with ${code}`, async function () {
      const before = asked;
      const error = await specify(sentence, writer).catch((e: unknown) => e);
      expect(error).to.be.instanceOf(StudioError);
      expect((error as StudioError).stage).to.equal("specify");
      expect((error as StudioError).code).to.equal(code);
      expect((error as StudioError).message.length).to.be.greaterThan(10);
      expect(asked, "the writer was asked").to.equal(before);
    });

  it("lets a plain description through to the writer", async function () {
    const contract = await specify("Convert a CSV file to JSON", writer);
    expect(contract.origin.recipe).to.equal("csv-to-json");
  });

  it("does not mistake the caller's HMAC key for a secret the handler holds", async function () {
    const contract = await specify("Compute the HMAC-SHA256 of a message with a secret key", writer);
    expect(contract.origin.recipe).to.equal("hmac");
  });
});
