import { expect } from "chai";
import { readSentence } from "./readSentence.ts";
import { sharedWordNet } from "./sharedWordNet.ts";

const read = (sentence: string) => readSentence(sentence, sharedWordNet());
const content = (sentence: string) =>
  read(sentence)
    .words.filter((w) => w.role === "content")
    .map((w) => w.lemma);

describe("reading a creator's sentence", function () {
  it("drops the request, the caller's part and idioms, and keeps what is asked", function () {
    expect(content("Give back the SHA-512 digest, in hex, of whatever text I send")).to.deep.equal([
      "sha512",
      "digest",
      "hex",
      "text",
    ]);
    expect(content("I need an endpoint that turns a temperature in degrees Fahrenheit into Celsius")).to.deep.equal([
      "temperature",
      "degree fahrenheit",
      "celsius",
    ]);
  });

  it("reads counting phrases as count, drops presence verbs after a count, and keeps them elsewhere", function () {
    expect(content("Work out how many days lie between two calendar dates given in ISO format")).to.deep.equal([
      "count",
      "day",
      "calendar",
      "date",
      "iso",
      "format",
    ]);
    expect(content("Check whether an email address actually exists")).to.include("exist");
  });

  it("reads a WordNet collocation as one word and takes the number bound out", function () {
    const reading = read("Write a whole number between 1 and 3999 as Roman numerals");
    expect(reading.words.filter((w) => w.role === "content").map((w) => w.lemma)).to.deep.equal([
      "whole number",
      "roman numeral",
    ]);
    expect(reading.ranges).to.deep.equal([{ minimum: 1, maximum: 3999, text: "between 1 and 3999" }]);
  });

  it("marks sending somewhere as a transfer, but not the caller sending the input", function () {
    expect(read("Send the data to my server").words.find((w) => w.lemma === "send")?.role).to.equal("transfer");
    expect(read("Email the result to me").words.find((w) => w.lemma === "email")?.role).to.equal("transfer");
    expect(read("a calculator endpoint: send it an arithmetic formula").words.map((w) => w.lemma)).to.not.include(
      "send",
    );
  });

  it("marks the unit a count picks out, and keeps a superlative as written", function () {
    expect(read("Count the paragraphs in an essay").words.find((w) => w.lemma === "paragraph")?.unit).to.equal(true);
    expect(read("Count the paragraphs in an essay").words.find((w) => w.lemma === "essay")?.unit).to.equal(undefined);
    expect(content("Find the longest word in a text")).to.include("longest");
  });
});
