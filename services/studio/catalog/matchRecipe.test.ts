import { expect } from "chai";
import { specify } from "../specify.ts";
import { StudioError } from "../studioError.ts";
import { catalogWriter } from "./catalogWriter.ts";
import { BOOST, matchRecipe, rankRecipes } from "./matchRecipe.ts";
import { RECIPES } from "./recipes.ts";

/** Sentences a creator might write, the recipe they must reach, and parameters read from them. */
const MATCHES: [string, string, Record<string, string>?][] = [
  ["Convert a text to upper case", "change-case", { case: "upper" }],
  ["Make a string uppercase", "change-case", { case: "upper" }],
  ["Sort a list of strings alphabetically", "sort-list", { order: "ascending", dedupe: "no" }],
  ["Compute the median of a list of numbers", "descriptive-statistics"],
  ["Turn a blog post title into a URL slug", "slugify"],
  ["Compute the SHA-512 hash of a string", "digest", { algorithm: "SHA-512" }],
];

/**
 * Near misses: each sentence is close to a catalog recipe (the second column, among the three closest) but asks for
 * something it does not do, named by the word in the third column, which that recipe cannot explain.
 */
const REFUSALS: [string, string, string][] = [
  ["Count the syllables in a text", "text-statistics", "syllables"],
  ["Compute the geometric mean of a list of numbers", "descriptive-statistics", "geometric"],
  ["Compute a moving average of numbers", "descriptive-statistics", "moving"],
  ["Compute the 90th percentile of a list of numbers", "descriptive-statistics", "percentile"],
  ["Compute the median of a list of dates", "descriptive-statistics", "dates"],
  ["Convert a date to the Hebrew calendar", "date-add-days", "hebrew"],
  ["Convert a weight in stones to kilograms", "convert-units", "stones"],
  ["Encode text as base85", "base64", "base85"],
  ["Compute the MD5 hash of a text", "digest", "md5"],
  ["Compute the SHA-3 hash of a text", "digest", "sha3"],
  ["Sort a list of dates chronologically", "sort-list", "dates"],
  ["Sort a list of objects by a key", "sort-list", "objects"],
  ["Sort the words of a sentence alphabetically", "sort-list", "sentence"],
  ["Convert text to alternating case", "change-case", "alternating"],
  ["Uppercase the first letter of each sentence", "change-case", "first"],
  ["Convert HTML to Markdown", "markdown-to-text", "html"],
  ["Convert a colour to CMYK", "colour-convert", "cmyk"],
  ["Parse CSV and sum the second column", "csv-to-json", "column"],
];

describe("matching a sentence to a catalog recipe", function () {
  const writer = catalogWriter();

  for (const [sentence, recipe, parameters] of MATCHES)
    it(`lists "${sentence}" as ${recipe}${parameters ? ` with ${JSON.stringify(parameters)}` : ""}`, async function () {
      const contract = await specify(sentence, writer);
      expect(contract.origin.recipe).to.equal(recipe);
      if (parameters) expect(contract.origin.parameters).to.deep.equal(parameters);
    });

  for (const [sentence, close, word] of REFUSALS)
    it(`refuses "${sentence}": ${close} does not explain "${word}"`, async function () {
      const error = await specify(sentence, writer).catch((e: unknown) => e);
      expect(error, sentence).to.be.instanceOf(StudioError);
      expect((error as StudioError).code).to.equal("no_match");
      const closest = (error as StudioError).details.closest as { recipe: string; unexplained: string[] }[];
      const near = closest.find((c) => c.recipe === close);
      expect(near, `${close} among ${closest.map((c) => c.recipe)}`).to.not.equal(undefined);
      expect(near?.unexplained.map((w) => w.toLowerCase())).to.include(word);
    });

  it("every recipe's own description lists that recipe", function () {
    const missed = RECIPES.filter((r) => matchRecipe(r.description, RECIPES).match?.recipe.id !== r.id);
    expect(missed.map((r) => r.id)).to.deep.equal([]);
  });

  // Without the fix, the catalog of the report (no palindrome or reverse recipe) listed a Luhn check for the first
  // sentence and text statistics for the second: a creator bonded and listed the wrong endpoint, a buyer paid for it.
  it("refuses the sentences of the report when the catalog has no recipe for them, instead of listing a near one", async function () {
    const without = catalogWriter({
      recipes: RECIPES.filter((r) => r.id !== "palindrome-check" && r.id !== "reverse-text"),
    });
    for (const [sentence, word] of [
      ["Check whether a string is a palindrome", "palindrome"],
      ["Reverse the words of a sentence", "Reverse"],
    ] as const) {
      const error = await specify(sentence, without).catch((e: unknown) => e);
      expect(error, sentence).to.be.instanceOf(StudioError);
      expect((error as StudioError).code).to.equal("no_match");
      expect((error as StudioError).message).to.include(`does not explain "${word}"`);
    }
  });

  it("a prefer boost reorders recipes that explain the sentence but never lists one that does not", function () {
    const sentence = "Parse CSV and sum the second column";
    const csv = rankRecipes(sentence, RECIPES).find((r) => r.recipe.id === "csv-to-json");
    expect(csv?.recipe.prefer?.test(sentence)).to.equal(true);
    expect(csv?.score).to.be.at.least(BOOST);
    expect(csv?.unexplained).to.include("column");
    expect(matchRecipe(sentence, RECIPES).match).to.equal(undefined);
  });

  it("the refusal names the three closest recipes, what each does and the words it does not explain, and how to configure a model", async function () {
    const error = (await specify("Compute the MD5 hash of a text", writer).catch((e: unknown) => e)) as StudioError;
    const lines = error.message.split("\n");
    expect(lines[0]).to.equal("no catalog recipe does what this sentence asks; the closest:");
    expect(lines[1]).to.equal(
      `  - Text digest (digest): ${RECIPES.find((r) => r.id === "digest")?.description}; does not explain "MD5"`,
    );
    expect(lines.slice(1, 4).every((line) => line.startsWith("  - "))).to.equal(true);
    expect(lines[4]).to.match(/^configure a model to write it: STUDIO_LLM_PROVIDER=openai/);
    expect(error.details.closest).to.have.length(3);
  });
});
