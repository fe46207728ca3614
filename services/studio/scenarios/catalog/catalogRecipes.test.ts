import { expect } from "chai";
import { catalogWriter } from "../../catalog/catalogWriter.ts";
import { MATCH_THRESHOLD } from "../../catalog/matchRecipe.ts";
import { RECIPES } from "../../catalog/recipes.ts";
import { OUTSIDE_SENTENCES } from "../../catalog/sampleSentences.ts";
import { specify } from "../../specify.ts";
import { StudioError } from "../../studioError.ts";
import { verifyHandler } from "../../verify/verifyHandler.ts";

/** Sentences a creator might write, the recipe they must reach, and parameters read from them. */
const SENTENCES: [string, string, Record<string, string>?][] = [
  ["Return the SHA-256 hex digest of a text", "digest", { algorithm: "SHA-256" }],
  ["Give me the SHA-512 hash of a string", "digest", { algorithm: "SHA-512" }],
  ["Compute an HMAC-SHA384 of a message with a key", "hmac", { algorithm: "SHA-384" }],
  ["Decode base64 back to text", "base64", { mode: "decode" }],
  ["Convert a distance in miles to kilometres", "convert-units", { to: "km", dimension: "length" }],
  ["Convert temperatures to Fahrenheit", "convert-units", { to: "F", dimension: "temperature" }],
  ["Convert text to snake_case", "change-case", { case: "snake" }],
  ["Convert CSV to JSON", "csv-to-json"],
  ["Convert a JSON array of objects to CSV", "json-to-csv"],
  ["Evaluate an arithmetic expression like (2+3)*4", "calculator"],
  ["Check a credit card number with the Luhn algorithm", "luhn-check"],
  ["Convert a number to binary", "number-base", { to: "2" }],
  ["Sort a list of strings in descending order", "sort-list", { order: "descending", dedupe: "no" }],
  ["Convert Roman numerals to a number", "roman-numerals", { mode: "parse" }],
  ["Roman numerals for numbers from 1 to 50", "roman-numerals", { mode: "format", minimum: "1", maximum: "50" }],
  ["Count the days between two dates written as MM/DD/YYYY", "days-between", { format: "MM/DD/YYYY" }],
];

describe("the catalog provider", function () {
  this.timeout(300_000);
  const writer = catalogWriter();

  it(`holds at least 60 recipes, each with at least 3 examples`, function () {
    expect(RECIPES.length).to.be.at.least(60);
    expect(new Set(RECIPES.map((r) => r.id)).size).to.equal(RECIPES.length);
    for (const recipe of RECIPES) expect(recipe.build(recipe.parameters("")).examples.length).to.be.at.least(3);
  });

  for (const [sentence, recipe, parameters] of SENTENCES)
    it(`matches "${sentence}" to ${recipe}${parameters ? ` with ${JSON.stringify(parameters)}` : ""}`, async function () {
      const contract = await specify(sentence, writer);
      expect(contract.origin.recipe).to.equal(recipe);
      expect(contract.origin.score).to.be.at.least(MATCH_THRESHOLD);
      if (parameters) expect(contract.origin.parameters).to.deep.equal(parameters);
    });

  for (const sentence of OUTSIDE_SENTENCES)
    it(`answers "${sentence}" with no_match, the three closest recipes and how to configure a model`, async function () {
      const error = await specify(sentence, writer).catch((e: unknown) => e);
      expect(error).to.be.instanceOf(StudioError);
      expect((error as StudioError).code).to.equal("no_match");
      expect((error as StudioError).data.closest).to.have.length(3);
      expect((error as StudioError).message).to.match(/STUDIO_LLM_PROVIDER=openai/);
    });

  it("every recipe, in every parameter variant, passes verify in the workerd sandbox", async function () {
    const variants = [
      ...RECIPES.map((r) => r.description),
      "SHA-1 digest of a text",
      "SHA-512 HMAC of a message with a key",
      "Decode hex back to text",
      "URL-decode a percent-encoded text",
      "Convert a weight to pounds",
      "Convert temperatures to Kelvin",
      "Convert text to camelCase",
      "Convert a decimal number to hexadecimal",
      "Convert Roman numerals to a number",
      "Sort a list of strings in descending order",
      "Reverse the characters of a text",
      "Reverse the lines of a text",
      "Decode a Caesar cipher with a shift of 3",
      "Convert text to Morse code",
      "Compute what percentage a part is of a whole",
      "Round up a number to 2 decimal places",
      "Round down a number to 1 decimal place",
      "Round a number to 2 decimal places",
      "Sort a list of numbers in ascending order",
      "Convert a Unix timestamp to an ISO 8601 date",
      "Escape HTML special characters in a text",
      "Encode text as base32",
      "Encode text as base58",
      "Compute the union of two lists",
      "Compute the difference of two lists",
      "Compute the symmetric difference of two lists",
      "Pretty-print a JSON document",
      "Minify a JSON document",
      "Days between two dates written as DD/MM/YYYY",
      "Day of the week of a date written MM/DD/YYYY",
      "ISO week number of a date written DD/MM/YYYY",
      "Age from a birth date written MM/DD/YYYY",
      "Add a number of days to a date written DD/MM/YYYY",
      "Write a whole number between 1 and 100 as Roman numerals",
      "Factorial of an integer up to 20",
      "The nth Fibonacci number for n up to 90",
      "Check whether a number below 1000 is prime",
    ];
    const failed: string[] = [];
    for (const sentence of variants) {
      const contract = await specify(sentence, writer);
      const report = await verifyHandler({ contract, source: await writer.write(contract, []) });
      if (!report.passed)
        failed.push(`${sentence}: ${JSON.stringify(report.checks.filter((c) => !c.passed)).slice(0, 500)}`);
    }
    expect(failed).to.deep.equal([]);
  });
});
