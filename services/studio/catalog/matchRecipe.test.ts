import { expect } from "chai";
import { specify } from "../specify.ts";
import { StudioError } from "../studioError.ts";
import { catalogWriter } from "./catalogWriter.ts";
import { BOOST, matchRecipe, rankRecipes } from "./matchRecipe.ts";
import { RECIPES } from "./recipes.ts";

/** Sentences a creator might write, the recipe they must reach, and parameters read from them. */
const MATCHES: [string, string, Record<string, string>?][] = [
  ["Check whether a string is a palindrome", "palindrome-check"],
  ["Reverse the words of a sentence", "reverse-text", { mode: "words" }],
  ["Reverse a string", "reverse-text", { mode: "characters" }],
  ["Count the vowels and consonants in a text", "count-vowels"],
  ["Check whether a year is a leap year", "leap-year"],
  ["Convert a text to upper case", "change-case", { case: "upper" }],
  ["Make a string uppercase", "change-case", { case: "upper" }],
  ["Sort a list of numbers in descending order", "sort-numbers", { order: "descending" }],
  ["Sort a list of strings alphabetically", "sort-list", { order: "ascending", dedupe: "no" }],
  ["Compute the median of a list of numbers", "descriptive-statistics"],
  ["Find the mode of a list of numbers", "descriptive-statistics"],
  ["Check whether a number is prime", "prime-check"],
  ["Compute the factorial of 20", "factorial"],
  ["Compute the greatest common divisor of two numbers", "gcd-lcm"],
  ["Return the nth Fibonacci number", "fibonacci"],
  ["Convert a number to words", "number-to-words"],
  ["Compute the day of the week for a date", "day-of-week"],
  ["Count the days between two dates", "days-between"],
  ["Compute a person's age from their birth date", "age"],
  ["Return the ISO week number of a date", "iso-week"],
  ["Convert a Unix timestamp to an ISO 8601 date", "unix-time", { direction: "to-iso" }],
  ["Encode text as base32", "base32", { mode: "encode" }],
  ["Decode a base58 string", "base58", { mode: "decode" }],
  ["Decode a JWT and show its claims", "jwt-decode"],
  ["Validate an email address", "email-validate"],
  ["Check whether a URL is valid", "url-validate"],
  ["Validate an IPv6 address", "ip-address-validate"],
  ["Check whether a string is a valid UUID", "uuid-validate"],
  ["Detect the card type of a credit card number", "card-brand"],
  ["Validate an ISBN-13", "isbn-check"],
  ["Compute the contrast ratio between two hex colours", "colour-contrast"],
  ["Truncate a text to 50 characters with an ellipsis", "truncate-text"],
  ["Wrap text at 40 columns", "word-wrap"],
  ["Remove duplicates from a list", "unique-list"],
  ["Split a list into chunks of 3 items", "chunk-list"],
  ["Flatten a nested list", "flatten-list"],
  ["Compute the intersection of two lists", "set-operations", { operation: "intersection" }],
  ["Check whether two words are anagrams", "anagram-check"],
  ["Encode a message with ROT13", "caesar-cipher", { shift: "13" }],
  ["Convert text to Morse code", "morse-code", { mode: "encode" }],
  ["Count the words in each sentence of a text", "sentence-lengths"],
  ["Strip the HTML tags from a page", "strip-html"],
  ["Format a duration in seconds as hours, minutes and seconds", "format-duration"],
  ["Compute the CRC32 checksum of a text", "crc32"],
  ["Escape HTML special characters in a text", "html-entities", { mode: "encode" }],
  ["Pretty-print a JSON document", "format-json", { style: "pretty", sortKeys: "no" }],
  ["Round a number to 2 decimal places", "round-number", { mode: "half" }],
  ["Compute the percentage change between two values", "percentage", { mode: "change" }],
  ["Turn a blog post title into a URL slug", "slugify"],
  ["Compute the SHA-512 hash of a string", "digest", { algorithm: "SHA-512" }],
];

/**
 * Near misses: each sentence is close to a catalog recipe (the second column, among the three closest) but asks for
 * something it does not do, named by the word in the third column, which that recipe cannot explain.
 */
const REFUSALS: [string, string, string][] = [
  ["Count the syllables in a text", "text-statistics", "syllables"],
  ["Check whether a number is a perfect square", "prime-check", "square"],
  ["Check whether a number is even or odd", "prime-check", "even"],
  ["Compute the geometric mean of a list of numbers", "descriptive-statistics", "geometric"],
  ["Compute a moving average of numbers", "descriptive-statistics", "moving"],
  ["Compute the 90th percentile of a list of numbers", "descriptive-statistics", "percentile"],
  ["Compute the median of a list of dates", "descriptive-statistics", "dates"],
  ["Check whether a string is a valid phone number", "isbn-check", "phone"],
  ["Convert a date to the Hebrew calendar", "date-add-days", "hebrew"],
  ["Compute the number of business days between two dates", "days-between", "business"],
  ["Check whether a year is a leap year in the Julian calendar", "leap-year", "julian"],
  ["Convert a weight in stones to kilograms", "convert-units", "stones"],
  ["Encode text as base85", "base64", "base85"],
  ["Compute the MD5 hash of a text", "digest", "md5"],
  ["Compute the SHA-3 hash of a text", "digest", "sha3"],
  ["Compute the CRC64 checksum of a text", "crc32", "crc64"],
  ["Sort a list of dates chronologically", "sort-list", "dates"],
  ["Sort a list of objects by a key", "sort-list", "objects"],
  ["Sort the words of a sentence alphabetically", "sort-list", "sentence"],
  ["Count the capital letters in a text", "count-vowels", "capital"],
  ["Remove the vowels from a text", "count-vowels", "remove"],
  ["Convert text to alternating case", "change-case", "alternating"],
  ["Uppercase the first letter of each sentence", "change-case", "first"],
  ["Convert a number to words in French", "number-to-words", "french"],
  ["Return the nth prime number", "prime-check", "nth"],
  ["Verify the signature of a JWT with a public key", "jwt-decode", "signature"],
  ["Check whether an IP address is in a CIDR range", "ip-address-validate", "cidr"],
  ["Check whether an email address exists", "email-validate", "exists"],
  ["Convert HTML to Markdown", "markdown-to-text", "html"],
  ["Justify a text to 80 columns", "word-wrap", "justify"],
  ["Find all anagrams of a word in a dictionary", "anagram-check", "dictionary"],
  ["Convert a colour to CMYK", "colour-convert", "cmyk"],
  ["Convert a time between time zones", "unix-time", "zones"],
  ["Decrypt an AES encrypted message", "caesar-cipher", "aes"],
  ["Parse CSV and sum the second column", "csv-to-json", "column"],
];

describe("matching a sentence to a catalog recipe", function () {
  const writer = catalogWriter();

  it(`holds a table of at least 60 sentences, half to match and half to refuse`, function () {
    expect(MATCHES.length + REFUSALS.length).to.be.at.least(60);
    expect(MATCHES.length).to.be.at.least(30);
    expect(REFUSALS.length).to.be.at.least(30);
  });

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
      const closest = (error as StudioError).data.closest as { recipe: string; unexplained: string[] }[];
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

  it("asks about the closest recipe when it does what is asked but leaves a word or two unexplained, never about sending", function () {
    const close = matchRecipe("Return the SHA-256 hex digest of a text, blazingly fast", RECIPES);
    expect(close.match).to.equal(undefined);
    expect(close.ask?.recipe.id).to.equal("digest");
    expect(close.ask?.unexplained).to.deep.equal(["blazingly", "fast"]);
    expect(matchRecipe("Email the SHA-256 digest of a text to me", RECIPES).ask).to.equal(undefined);
    expect(matchRecipe("Send the data to my server", RECIPES).ask).to.equal(undefined);
  });

  it("lists the recipe the creator accepted with the words it accepted, and nothing else", async function () {
    const sentence = "Return the SHA-256 hex digest of a text, blazingly fast";
    const accepted = await catalogWriter({ accept: { recipe: "digest", words: ["blazingly", "fast"] } }).specify(
      sentence,
    );
    expect(accepted.origin).to.deep.include({ recipe: "digest", accepted: ["blazingly", "fast"] });
    for (const accept of [
      { recipe: "hmac", words: ["blazingly", "fast"] },
      { recipe: "digest", words: ["blazingly"] },
    ]) {
      const error = await catalogWriter({ accept })
        .specify(sentence)
        .catch((e: unknown) => e);
      expect((error as StudioError).code, JSON.stringify(accept)).to.equal("no_match");
    }
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
    expect(error.data.closest).to.have.length(3);
  });
});
