import type { Recipe } from "../recipe.ts";
import { objectSchema } from "../recipe.ts";

/** Whether a text is a valid ISBN-10 or ISBN-13 by its check digit, with the other form. */
export const isbnRecipe: Recipe = {
  id: "isbn-check",
  title: "ISBN check",
  description: "Validate an ISBN-10 or ISBN-13 book number by its check digit and convert it to the other form",
  synonyms: ["isbn", "isbn10", "isbn13", "book", "books", "check", "digit", "validate", "ean", "publisher"],
  category: "validation",
  tags: ["isbn", "books", "validation"],
  parameters: () => ({}),
  build: () => ({
    name: "ISBN check",
    description:
      "Whether an ISBN-10 (mod 11, X for 10) or ISBN-13 (978/979, mod 10) is valid, hyphens and spaces ignored; both forms when they exist (979 has no ISBN-10).",
    compute: String.raw`
function isbn13Of(nine) {
  const body = "978" + nine;
  let sum = 0;
  for (let i = 0; i < 12; i++) sum += Number(body[i]) * (i % 2 ? 3 : 1);
  return body + ((10 - (sum % 10)) % 10);
}
function isbn10Of(nine) {
  let sum = 0;
  for (let i = 0; i < 9; i++) sum += Number(nine[i]) * (10 - i);
  const check = (11 - (sum % 11)) % 11;
  return nine + (check === 10 ? "X" : String(check));
}
async function compute(input) {
  const s = input.isbn.replace(/[\s-]/g, "").toUpperCase();
  const none = { valid: false, format: null, isbn10: null, isbn13: null };
  if (/^[0-9]{9}[0-9X]$/.test(s)) {
    return isbn10Of(s.slice(0, 9)) === s ? { valid: true, format: "isbn10", isbn10: s, isbn13: isbn13Of(s.slice(0, 9)) } : none;
  }
  if (/^97[89][0-9]{10}$/.test(s)) {
    let sum = 0;
    for (let i = 0; i < 12; i++) sum += Number(s[i]) * (i % 2 ? 3 : 1);
    if ((10 - (sum % 10)) % 10 !== Number(s[12])) return none;
    return { valid: true, format: "isbn13", isbn10: s.startsWith("978") ? isbn10Of(s.slice(3, 12)) : null, isbn13: s };
  }
  return none;
}`,
    requestSchema: objectSchema({ isbn: { type: "string", maxLength: 32 } }),
    responseSchema: objectSchema({
      valid: { type: "boolean" },
      format: { enum: ["isbn10", "isbn13", null] },
      isbn10: { type: ["string", "null"], pattern: "^[0-9]{9}[0-9X]$" },
      isbn13: { type: ["string", "null"], pattern: "^97[89][0-9]{10}$" },
    }),
    examples: [
      {
        input: { isbn: "978-0-306-40615-7" },
        output: { valid: true, format: "isbn13", isbn10: "0306406152", isbn13: "9780306406157" },
      },
      {
        input: { isbn: "0-8044-2957-X" },
        output: { valid: true, format: "isbn10", isbn10: "080442957X", isbn13: "9780804429573" },
      },
      { input: { isbn: "978-0-306-40615-8" }, output: { valid: false, format: null, isbn10: null, isbn13: null } },
    ],
    edgeCases: [{ input: { isbn: "979-10-90636-07-1" }, note: "a 979 ISBN has no ISBN-10" }],
    maxResponseBytes: 128,
  }),
};
