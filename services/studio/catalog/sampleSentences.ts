/** Twelve sentences for twelve different catalog recipes: the end-to-end test and `bench:studio` list each of them. */
export const CATALOG_SENTENCES = [
  "Return the SHA-256 hex digest of a text",
  "Compute an HMAC-SHA512 of a message with a key",
  "Encode text as base64",
  "Convert a distance in miles to kilometres",
  "Count the words, lines and sentences in a text",
  "Turn a blog post title into a URL slug",
  "Extract all email addresses from a text",
  "Evaluate an arithmetic expression like (2+3)*4",
  "Check a credit card number with the Luhn algorithm",
  "Convert a number to Roman numerals",
  "Compute the Levenshtein edit distance between two strings",
  "Convert CSV to JSON",
] as const;

/** Sentences no recipe covers: the catalog answers each with `no_match`. */
export const OUTSIDE_SENTENCES = [
  "Translate English text into French",
  "Generate a photo of a cat from a description",
  "Summarize a long article in three bullet points",
  "Play a game of chess against the caller",
  "Tell a joke about programmers",
] as const;

/** Sentences asking for what the sandbox forbids: refused at specify. */
export const FORBIDDEN_SENTENCES = [
  "Fetch the current weather for a city",
  "Read a file from the server disk and return it",
  "Mine bitcoin with the spare cycles of each call",
] as const;
