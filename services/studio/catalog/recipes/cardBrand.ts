import { LUHN_SOURCE } from "../luhnSource.ts";
import type { Recipe } from "../recipe.ts";
import { objectSchema } from "../recipe.ts";

const BRANDS = ["visa", "mastercard", "amex", "discover", "diners", "jcb", "unionpay", "unknown"];

/** The brand (Visa, Mastercard, …) of a payment card number by its issuer prefix, with its length and Luhn checks. */
export const cardBrandRecipe: Recipe = {
  id: "card-brand",
  title: "Card brand detection",
  description:
    "Detect the brand or type of a credit or debit card number (Visa, Mastercard, American Express, Discover, JCB) from its prefix",
  synonyms: [
    "brand",
    "type",
    "issuer",
    "network",
    "scheme",
    "iin",
    "bin",
    "visa",
    "mastercard",
    "amex",
    "american",
    "express",
    "discover",
    "diners",
    "jcb",
    "unionpay",
    "identify",
    "which",
  ],
  category: "validation",
  tags: ["card", "payments", "validation"],
  parameters: () => ({}),
  build: () => ({
    name: "Card brand detection",
    description:
      "The card brand from the issuer prefix (Visa, Mastercard, Amex, Discover, Diners Club, JCB, UnionPay, else unknown), whether the length fits the brand and whether the number passes the Luhn check.",
    compute: String.raw`
${LUHN_SOURCE}
const RULES = [
  ["amex", /^3[47]/, [15]],
  ["visa", /^4/, [13, 16, 19]],
  ["mastercard", /^(?:5[1-5]|2(?:22[1-9]|2[3-9][0-9]|[3-6][0-9]{2}|7[01][0-9]|720))/, [16]],
  ["discover", /^(?:6011|64[4-9]|65)/, [16, 17, 18, 19]],
  ["diners", /^(?:30[0-5]|36|38|39)/, [14, 15, 16, 17, 18, 19]],
  ["jcb", /^35(?:2[89]|[3-8][0-9])/, [16, 17, 18, 19]],
  ["unionpay", /^62/, [16, 17, 18, 19]],
];
async function compute(input) {
  const digits = input.number.replace(/[\s-]/g, "");
  const rule = RULES.find(([, prefix]) => prefix.test(digits));
  const brand = rule ? rule[0] : "unknown";
  const lengthValid = rule ? rule[2].includes(digits.length) : false;
  const passesLuhn = luhn(digits);
  return { brand, lengthValid, luhn: passesLuhn, valid: lengthValid && passesLuhn };
}`,
    requestSchema: objectSchema({ number: { type: "string", pattern: "^[0-9 -]{1,64}$" } }),
    responseSchema: objectSchema({
      brand: { enum: BRANDS },
      lengthValid: { type: "boolean" },
      luhn: { type: "boolean" },
      valid: { type: "boolean" },
    }),
    examples: [
      {
        input: { number: "4539 1488 0343 6467" },
        output: { brand: "visa", lengthValid: true, luhn: true, valid: true },
      },
      { input: { number: "3782-822463-10005" }, output: { brand: "amex", lengthValid: true, luhn: true, valid: true } },
      {
        input: { number: "5555555555554444" },
        output: { brand: "mastercard", lengthValid: true, luhn: true, valid: true },
      },
      {
        input: { number: "6011111111111118" },
        output: { brand: "discover", lengthValid: true, luhn: false, valid: false },
      },
      { input: { number: "9999" }, output: { brand: "unknown", lengthValid: false, luhn: false, valid: false } },
    ],
    edgeCases: [{ input: { number: "2221000000000009" }, note: "the first Mastercard 2-series prefix" }],
    maxResponseBytes: 128,
  }),
};
