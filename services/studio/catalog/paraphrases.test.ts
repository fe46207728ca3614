import { expect } from "chai";
import { PARAPHRASES } from "../../../testkit/studio/paraphrases.ts";
import { HELD_OUT_PARAPHRASES, SECOND_HELD_OUT_PARAPHRASES } from "../../../testkit/studio/paraphrasesHeldOut.ts";
import type { ParaphraseScore } from "../../../testkit/studio/scoreParaphrases.ts";
import { scoreParaphrases } from "../../../testkit/studio/scoreParaphrases.ts";
import { catalogWriter } from "./catalogWriter.ts";

const PARTS = {
  tuning: PARAPHRASES,
  "held out": HELD_OUT_PARAPHRASES,
  "held out, second": SECOND_HELD_OUT_PARAPHRASES,
};

const percent = (ratio: number) => `${(ratio * 100).toFixed(1)}%`;

/** Each wrong listing and each missed sentence, one per line, for a failure message. */
const mistakes = (score: ParaphraseScore) =>
  score.outcomes
    .filter((o) => o.verdict === "wrong" || o.verdict === "missed")
    .map((o) =>
      o.listed
        ? `listed "${o.sentence}" as ${o.listed.recipe} ${JSON.stringify(o.listed.parameters)}, not ${o.expected}`
        : `refused "${o.sentence}" (${o.expected}), closest ${o.closest?.join(", ")}`,
    )
    .join("\n");

describe("the paraphrase set: sentences written as creators write them", function () {
  this.timeout(120_000);
  const scores: Record<string, ParaphraseScore> = {};

  before(async function () {
    for (const [part, set] of Object.entries(PARTS)) scores[part] = await scoreParaphrases(set, catalogWriter());
    scores.all = await scoreParaphrases(Object.values(PARTS).flat(), catalogWriter());
    for (const [part, s] of Object.entries(scores))
      process.stdout.write(
        `      ${part}: ${s.sentences} sentences, precision ${percent(s.precision)} (${s.right}/${s.listed} listed), recall ${percent(s.recall)} (${s.right}/${s.withRecipe} with a recipe)\n`,
      );
  });

  it("holds at least 300 sentences, with near misses to refuse", function () {
    const all = Object.values(PARTS).flat();
    expect(all.length).to.be.at.least(300);
    expect(new Set(all.map(([sentence]) => sentence)).size).to.equal(all.length);
    expect(all.filter(([, expected]) => expected === "refuse").length).to.be.at.least(80);
    expect(HELD_OUT_PARAPHRASES.length).to.be.at.least(100);
  });

  it("lists no sentence with a wrong recipe or parameter (precision 100%), in every part", function () {
    for (const [part, s] of Object.entries(scores)) expect(s.precision, `${part}:\n${mistakes(s)}`).to.equal(1);
  });

  it("lists at least 95% of the sentences that have a recipe", function () {
    expect(scores.all?.recall, mistakes(scores.all as ParaphraseScore)).to.be.at.least(0.95);
  });

  it("names the three closest recipes in every refusal", function () {
    const s = scores.all as ParaphraseScore;
    expect(s.refusalsNamingClosest).to.equal(s.refusals);
  });

  it("lists the six sentences of the report, each with the constraint it states bound", async function () {
    const writer = catalogWriter();
    const six: [string, string, Record<string, string>][] = [
      ["Count how many vowels and how many consonants appear in a piece of text", "count-vowels", {}],
      [
        "I need an endpoint that turns a temperature in degrees Fahrenheit into Celsius",
        "convert-units",
        { to: "C", dimension: "temperature" },
      ],
      ["Check whether a credit card number is valid according to the Luhn algorithm", "luhn-check", {}],
      [
        "Write a whole number between 1 and 3999 as Roman numerals",
        "roman-numerals",
        { minimum: "1", maximum: "3999" },
      ],
      ["Give back the SHA-512 digest, in hex, of whatever text I send", "digest", { algorithm: "SHA-512" }],
      [
        "Work out how many days lie between two calendar dates given in ISO format",
        "days-between",
        { format: "YYYY-MM-DD" },
      ],
    ];
    for (const [sentence, recipe, parameters] of six) {
      const contract = await writer.specify(sentence);
      expect(contract.origin.recipe, sentence).to.equal(recipe);
      expect(contract.origin.parameters, sentence).to.include(parameters);
    }
  });
});
