/**
 * One sentence of the paraphrase set: what a creator typed, and the catalog recipe (with the parameters the sentence
 * sets) it must be listed as, or "refuse" when no recipe does what it asks.
 */
export type Paraphrase = [sentence: string, expected: string, parameters?: Record<string, string>];

/**
 * Sentences written the way creators write them (filler, typos, units, constraints, near misses), used to tune the
 * studio's matcher. `HELD_OUT_PARAPHRASES` (paraphrasesHeldOut.ts) were written after the matcher was done and
 * were not looked at while tuning it.
 */
export const PARAPHRASES: Paraphrase[] = [
  // The six sentences of the report that once were refused for a filler word.
  ["Count how many vowels and how many consonants appear in a piece of text", "count-vowels"],
  [
    "I need an endpoint that turns a temperature in degrees Fahrenheit into Celsius",
    "convert-units",
    { to: "C", dimension: "temperature" },
  ],
  ["Check whether a credit card number is valid according to the Luhn algorithm", "luhn-check"],
  [
    "Write a whole number between 1 and 3999 as Roman numerals",
    "roman-numerals",
    { mode: "format", minimum: "1", maximum: "3999" },
  ],
  ["Give back the SHA-512 digest, in hex, of whatever text I send", "digest", { algorithm: "SHA-512" }],
  [
    "Work out how many days lie between two calendar dates given in ISO format",
    "days-between",
    { format: "YYYY-MM-DD" },
  ],

  // digest
  ["hash a string with sha256 and return the hex", "digest", { algorithm: "SHA-256" }],
  ["I need something that spits out the sha1 of a piece of text", "digest", { algorithm: "SHA-1" }],
  ["Take some text and give me its SHA-384 hash as a hex string", "digest", { algorithm: "SHA-384" }],
  ["fingerprint a text using sha 256", "digest", { algorithm: "SHA-256" }],
  ["an endpoint that hashes text", "digest", { algorithm: "SHA-256" }],
  ["compute the sha-512 checksum of the input string please", "digest", { algorithm: "SHA-512" }],
  ["keccak256 hash of a string", "refuse"],
  ["md5 a string", "refuse"],
  ["Hash a text with bcrypt", "refuse"],
  ["Compute the SHA-256 of an uploaded file", "refuse"],

  // hmac
  ["Sign a message with a shared key using HMAC-SHA256", "hmac", { algorithm: "SHA-256" }],
  ["generate an hmac of a message and a key, sha512 please", "hmac", { algorithm: "SHA-512" }],
  ["Compute a keyed hash (HMAC with SHA-1) of some text", "hmac", { algorithm: "SHA-1" }],
  ["verify a webhook signature by comparing it to the HMAC of the body", "refuse"],

  // base64, hex, base32, base58
  ["base64 encode whatever string comes in", "base64", { mode: "encode" }],
  ["decode base-64 strings into normal text", "base64", { mode: "decode" }],
  ["i want to b64 encode a text", "base64", { mode: "encode" }],
  ["Encode an image as base64", "refuse"],
  ["Convert a string to its hexadecimal byte representation", "hex", { mode: "encode" }],
  ["decode hex back into text", "hex", { mode: "decode" }],
  ["base32-encode a string", "base32", { mode: "encode" }],
  ["decode base32 text", "base32", { mode: "decode" }],
  ["encode some text in base58 like bitcoin does", "base58", { mode: "encode" }],
  ["Encode text as base85", "refuse"],

  // url encoding
  ["percent-encode a string so it can go in a query string", "url-encoding", { mode: "encode" }],
  ["escape text for use in a URL", "url-encoding", { mode: "encode" }],
  ["url-decode a percent encoded string", "url-encoding", { mode: "decode" }],

  // text statistics
  ["Count how many words, lines and characters a text has", "text-statistics"],
  ["give me stats on a paragraph: number of sentences, words and the average word length", "text-statistics"],
  ["word count for an essay", "text-statistics"],
  ["Count the syllables in a poem", "refuse"],
  ["Count the characters of a string, excluding spaces", "refuse"],
  ["Find the longest word in a text", "refuse"],

  // slugify, change case
  ["make a url-friendly slug from an article headline", "slugify"],
  ["Slugify a title", "slugify"],
  ["convert blog post titles into slugs for the url", "slugify"],
  ["convert a variable name to snake_case", "change-case", { case: "snake" }],
  ["make text ALL CAPS", "change-case", { case: "upper" }],
  ["Turn a sentence into Title Case", "change-case", { case: "title" }],
  ["lowercase everything in a string", "change-case", { case: "lower" }],
  ["change a phrase into camelCase", "change-case", { case: "camel" }],
  ["kebab-case a string", "change-case", { case: "kebab" }],
  ["Convert text to alternating case, like sPoNgEbOb", "refuse"],

  // extract emails, urls, numbers
  ["pull all the email addresses out of a block of text", "extract-emails"],
  ["find every e-mail address in a document and list them", "extract-emails"],
  ["grab the emails from some text", "extract-emails"],
  ["Extract all links from a text", "extract-urls"],
  ["find the urls mentioned in a message", "extract-urls"],
  ["list every http link in a text", "extract-urls"],
  ["pull out all the numbers that appear in a string", "extract-numbers"],
  ["find every numeric value in a sentence", "extract-numbers"],
  ["Extract the phone numbers from a text", "refuse"],
  ["extract the hashtags from a tweet", "refuse"],

  // json
  ["validate a JSON document against a JSON schema and return the errors", "json-schema-validate"],
  ["check that some json conforms to a schema", "json-schema-validate"],
  ["get the value at a JSON pointer path in a json document", "json-pointer"],
  ["pick a field out of a JSON object with a pointer like /a/b/0", "json-pointer"],
  ["Parse CSV into JSON objects", "csv-to-json"],
  ["convert comma separated values to json", "csv-to-json"],
  ["Export an array of JSON objects as CSV", "json-to-csv"],
  ["turn json rows into csv", "json-to-csv"],
  ["pretty print json", "format-json", { style: "pretty", sortKeys: "no" }],
  ["minify a JSON string", "format-json", { style: "minify", sortKeys: "no" }],
  ["format JSON nicely with the keys sorted", "format-json", { style: "pretty", sortKeys: "yes" }],
  ["Convert YAML to JSON", "refuse"],
  ["convert JSON to XML", "refuse"],
  ["Validate an XML document against a schema", "refuse"],
  ["Minify CSS", "refuse"],

  // unit conversion
  ["convert miles to km", "convert-units", { to: "km", dimension: "length" }],
  ["Convert pounds into kilograms", "convert-units", { to: "kg", dimension: "mass" }],
  ["change a length in feet to metres", "convert-units", { to: "m", dimension: "length" }],
  ["how many ounces are in a given number of grams", "convert-units", { to: "oz", dimension: "mass" }],
  ["Celsius to Kelvin converter", "convert-units", { to: "K", dimension: "temperature" }],
  ["convert 100 km into miles", "convert-units", { to: "mi", dimension: "length" }],
  ["inches to centimetres please", "convert-units", { to: "cm", dimension: "length" }],
  ["temperature conversion from celcius to farenheit", "convert-units", { to: "F", dimension: "temperature" }],
  ["Convert a temperature from Celsius to Rankine", "refuse"],
  ["Convert litres to gallons", "refuse"],
  ["convert square feet to square metres", "refuse"],
  ["Convert a weight in stones to kilograms", "refuse"],
  ["convert euros to dollars", "refuse"],

  // dates
  ["add 30 days to a date", "date-add-days"],
  ["subtract a number of days from a calendar date and tell me the weekday", "date-add-days"],
  ["Add 3 months to a date", "refuse"],
  ["add two hours to a timestamp", "refuse"],
  ["number of days between two dates", "days-between", { format: "YYYY-MM-DD" }],
  ["days between two dates written as DD/MM/YYYY", "days-between", { format: "DD/MM/YYYY" }],
  ["count the days between two US style dates (MM/DD/YYYY)", "days-between", { format: "MM/DD/YYYY" }],
  ["how many weeks and days are there between two dates", "days-between"],
  ["number of working days between two dates, skipping weekends", "refuse"],
  ["what day of the week was a given date", "day-of-week"],
  ["find the weekday for a date", "day-of-week", { format: "YYYY-MM-DD" }],
  ["get the ISO week number of a date", "iso-week"],
  ["how old is someone born on a given date", "age"],
  ["compute age in years from a date of birth", "age"],
  ["Compute the age of a dog in dog years", "refuse"],
  ["tell whether a given year is a leap year", "leap-year"],
  ["is 2024 a leap year", "leap-year"],
  ["Check whether a year is a leap year in the Hebrew calendar", "refuse"],
  ["convert an epoch timestamp to an ISO 8601 date", "unix-time", { direction: "to-iso" }],
  ["turn an ISO date into unix seconds", "unix-time", { direction: "to-unix" }],
  ["unix time to a readable UTC date", "unix-time", { direction: "to-iso" }],
  ["Convert a Unix timestamp to New York local time", "refuse"],
  ["turn a number of seconds into hours, minutes and seconds", "format-duration"],
  ["humanize a duration given in seconds", "format-duration"],

  // calculator, uuid
  ["evaluate a math expression like 3 * (4 + 5)", "calculator"],
  ["a calculator endpoint: send it an arithmetic formula, get the result back", "calculator"],
  ["compute the result of a simple arithmetic expression string", "calculator"],
  ["Solve a quadratic equation", "refuse"],
  ["generate a name-based UUID v5 from a namespace and a name", "uuid-v5"],
  ["deterministic uuid for a name in a namespace", "uuid-v5"],
  ["Generate a random UUID", "refuse"],
  ["generate a random number between 1 and 100", "refuse"],

  // word frequencies, edit distance
  ["find the most common words in a text", "word-frequencies"],
  ["count how often each word appears in a document", "word-frequencies"],
  ["the 10 most frequent words of an article", "word-frequencies"],
  ["compute the edit distance between two words", "edit-distance"],
  ["Levenshtein distance of two strings", "edit-distance"],
  ["measure how similar two pieces of text are", "edit-distance"],
  ["compare two texts and show a line by line diff", "refuse"],

  // luhn, iban, card brand, isbn
  ["validate card numbers with the luhn checksum", "luhn-check"],
  ["verify an IMEI using Luhn", "luhn-check"],
  ["Check whether a card number is a palindrome", "refuse"],
  ["check if a credit card has expired", "refuse"],
  ["validate an IBAN", "iban-check"],
  ["check that a bank account number in IBAN format is correct", "iban-check"],
  ["Validate a US routing number", "refuse"],
  ["figure out if a card number is visa or mastercard", "card-brand"],
  ["which card network does a credit card number belong to", "card-brand"],
  ["validate an ISBN-10 and give the ISBN-13", "isbn-check"],
  ["check a book's ISBN", "isbn-check"],

  // markdown, html
  ["strip the markdown formatting from a README and give plain text", "markdown-to-text"],
  ["convert md to plain text", "markdown-to-text"],
  ["Convert HTML to Markdown", "refuse"],
  ["remove html tags from a page and keep the text", "strip-html"],
  ["get plain text out of an html snippet", "strip-html"],
  ["escape <, > and & in a string for HTML", "html-entities", { mode: "encode" }],
  ["unescape HTML entities like &amp;", "html-entities", { mode: "decode" }],

  // number base
  ["convert a decimal integer to binary", "number-base", { to: "2" }],
  ["turn a number into octal", "number-base", { to: "8" }],
  ["convert binary to decimal", "number-base", { to: "10" }],
  ["convert an integer to hexadecimal", "number-base", { to: "16" }],
  ["Convert text to binary", "refuse"],

  // statistics
  ["get the mean, median and standard deviation of a list of numbers", "descriptive-statistics"],
  ["average of an array of numbers", "descriptive-statistics"],
  ["compute the variance of some numbers", "descriptive-statistics"],
  ["find the max and min in a list of values", "descriptive-statistics"],
  ["Calculate the median of a list of strings", "refuse"],
  ["Compute a weighted average of numbers", "refuse"],
  ["Compute the correlation between two lists of numbers", "refuse"],

  // sorting
  ["Sort a list of names alphabetically", "sort-list", { order: "ascending", dedupe: "no" }],
  ["sort some words from z to a", "sort-list", { order: "descending", dedupe: "no" }],
  ["sort strings and drop the duplicates", "sort-list", { order: "ascending", dedupe: "yes" }],
  ["sort numbers from largest to smallest", "sort-numbers", { order: "descending" }],
  ["order a list of integers ascending", "sort-numbers", { order: "ascending" }],
  ["sort an array of numbers in increasing order", "sort-numbers", { order: "ascending" }],
  ["Sort a list of dates", "refuse"],
  ["sort a list of strings by their length", "refuse"],
  ["sort version numbers like 1.10.2 and 1.9.0", "refuse"],
  ["Sort a list randomly", "refuse"],
  ["shuffle a list", "refuse"],

  // url
  ["split a URL into protocol, host, path and query", "parse-url"],
  ["parse a url and return its query parameters", "parse-url"],
  ["check if a link is a valid http url", "url-validate"],
  ["validate urls", "url-validate"],

  // colours
  ["convert a hex colour to RGB", "colour-convert"],
  ["turn rgb colors into HSL", "colour-convert"],
  ["WCAG contrast ratio between a text colour and a background colour", "colour-contrast"],
  ["Convert a colour to CMYK", "refuse"],

  // roman numerals
  ["convert roman numerals like XIV back to integers", "roman-numerals", { mode: "parse" }],
  ["number to roman numeral converter", "roman-numerals", { mode: "format" }],
  ["Convert numbers up to 5000 into Roman numerals", "refuse"],

  // palindrome, reverse, vowels, anagrams
  ["chek if a string is a palindrom", "palindrome-check"],
  ["determine whether a phrase reads the same backward as forward", "palindrome-check"],
  ["is a word a palindrome", "palindrome-check"],
  ["Check if a sentence is a pangram", "refuse"],
  ["flip a string backwards", "reverse-text", { mode: "characters" }],
  ["reverse the order of the words in a sentence", "reverse-text", { mode: "words" }],
  ["reverse the lines of a text", "reverse-text", { mode: "lines" }],
  ["Reverse the words of a text and count them", "refuse"],
  ["Reverse each word of a sentence but keep the words in place", "refuse"],
  ["Reverse a linked list", "refuse"],
  ["number of vowels in a word", "count-vowels"],
  ["tally the vowels and consonants in a sentence", "count-vowels"],
  ["Remove the vowels from a text", "refuse"],
  ["Count the uppercase letters in a text", "refuse"],
  ["are two words anagrams of each other", "anagram-check"],
  ["check if one phrase is an anagram of another", "anagram-check"],
  ["Find all anagrams of a word in a dictionary", "refuse"],

  // ciphers, morse
  ["encrypt text with a caesar shift of 5", "caesar-cipher", { shift: "5" }],
  ["rot13 a string", "caesar-cipher", { shift: "13" }],
  ["decode a caesar cipher with a shift of 3", "caesar-cipher", { shift: "23" }],
  ["Encrypt a message with AES", "refuse"],
  ["translate text into morse", "morse-code", { mode: "encode" }],
  ["decode morse code back into letters", "morse-code", { mode: "decode" }],
  ["Translate text to Pig Latin", "refuse"],

  // truncate, wrap, sentences
  ["shorten a text to 100 characters and add an ellipsis", "truncate-text"],
  ["cut a long string down to a max length", "truncate-text"],
  ["wrap a paragraph at 72 columns", "word-wrap"],
  ["break long text into lines no wider than 60 characters", "word-wrap"],
  ["Justify a text to 80 columns", "refuse"],
  ["count the words in each sentence", "sentence-lengths"],
  ["split a text into sentences and say how many words each one has", "sentence-lengths"],

  // math
  ["is a number prime", "prime-check"],
  ["check if an integer is prime and factorize it", "prime-check"],
  ["find the prime factors of a number", "prime-check"],
  ["tell if an integer is odd or even", "refuse"],
  ["Return the nth prime number", "refuse"],
  ["compute n factorial exactly", "factorial"],
  ["factorial of an integer up to 500", "factorial", { maximum: "500" }],
  ["factorial of numbers up to a million", "refuse"],
  ["greatest common divisor of two integers", "gcd-lcm"],
  ["find the lcm of a list of numbers", "gcd-lcm"],
  ["nth fibonacci number", "fibonacci"],
  ["return fibonacci(n) for n up to 90", "fibonacci", { maximum: "90" }],
  ["spell out a number in english words", "number-to-words"],
  ["convert 1234 to words like on a cheque", "number-to-words"],
  ["translate a number into French words", "refuse"],
  ["what percentage is 25 of 200", "percentage", { mode: "of" }],
  ["calculate the percentage change between two numbers", "percentage", { mode: "change" }],
  ["percent increase from an old value to a new one", "percentage", { mode: "change" }],
  ["round a float to 2 decimals", "round-number", { mode: "half" }],
  ["round numbers up to the nearest integer", "round-number", { mode: "up" }],
  ["round to 3 significant figures", "round-number", { mode: "significant" }],
  ["Round a number to the nearest 5", "refuse"],
  ["compute the square root of a number", "refuse"],
  ["raise a number to a power", "refuse"],
  ["Format a number with thousands separators", "refuse"],

  // validation
  ["check if an email address is well formed", "email-validate"],
  ["validate emails", "email-validate"],
  ["Check whether an email address actually exists", "refuse"],
  ["validate an IPv4 address", "ip-address-validate"],
  ["tell if an ip address is private or public", "ip-address-validate"],
  ["Check whether an IP address is inside a CIDR range", "refuse"],
  ["check that a string is a valid GUID", "uuid-validate"],
  ["Validate a phone number", "refuse"],
  ["validate a US zip code", "refuse"],

  // jwt, crc
  ["decode a JWT and show me the payload", "jwt-decode"],
  ["inspect the claims of a json web token", "jwt-decode"],
  ["Decode a JWT and verify its signature", "refuse"],
  ["crc32 of a string", "crc32"],
  ["compute a CRC-32 checksum like zip does", "crc32"],

  // lists
  ["split an array into batches of 50", "chunk-list"],
  ["paginate a list into pages of 10 items", "chunk-list"],
  ["flatten nested arrays", "flatten-list"],
  ["turn a list of lists into one flat list", "flatten-list"],
  ["find the items two lists have in common", "set-operations", { operation: "intersection" }],
  ["union of two arrays", "set-operations", { operation: "union" }],
  ["items in the first list that are missing from the second", "set-operations", { operation: "difference" }],
  ["remove duplicates from an array but keep the order", "unique-list"],
  ["dedupe a list of values", "unique-list"],
  ["Join a list of words into a sentence", "refuse"],
  ["Split a string on commas", "refuse"],

  // asking for what no recipe does, or for sending things somewhere
  ["Send the data to my server", "refuse"],
  ["Email the result to me", "refuse"],
  ["Post the result to a webhook", "refuse"],
  ["forward each request body to my slack channel", "refuse"],
  ["Detect the language of a text", "refuse"],
  ["Summarize a text in one sentence", "refuse"],
  ["Generate a QR code for a URL", "refuse"],
  ["Check the spelling of a text", "refuse"],
];
