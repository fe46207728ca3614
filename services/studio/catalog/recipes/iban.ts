import type { Recipe } from "../recipe.ts";
import { objectSchema } from "../recipe.ts";

/** IBAN lengths by country (ISO 13616 registry). */
const LENGTHS: Record<string, number> = {
  AD: 24,
  AE: 23,
  AL: 28,
  AT: 20,
  AZ: 28,
  BA: 20,
  BE: 16,
  BG: 22,
  BH: 22,
  BR: 29,
  BY: 28,
  CH: 21,
  CR: 22,
  CY: 28,
  CZ: 24,
  DE: 22,
  DK: 18,
  DO: 28,
  EE: 20,
  EG: 29,
  ES: 24,
  FI: 18,
  FO: 18,
  FR: 27,
  GB: 22,
  GE: 22,
  GI: 23,
  GL: 18,
  GR: 27,
  GT: 28,
  HR: 21,
  HU: 28,
  IE: 22,
  IL: 23,
  IQ: 23,
  IS: 26,
  IT: 27,
  JO: 30,
  KW: 30,
  KZ: 20,
  LB: 28,
  LC: 32,
  LI: 21,
  LT: 20,
  LU: 20,
  LV: 21,
  MC: 27,
  MD: 24,
  ME: 22,
  MK: 19,
  MR: 27,
  MT: 31,
  MU: 30,
  NL: 18,
  NO: 15,
  PK: 24,
  PL: 28,
  PS: 29,
  PT: 25,
  QA: 29,
  RO: 24,
  RS: 22,
  SA: 24,
  SC: 31,
  SE: 24,
  SI: 19,
  SK: 24,
  SM: 27,
  ST: 25,
  SV: 28,
  TL: 23,
  TN: 24,
  TR: 26,
  UA: 29,
  VA: 22,
  VG: 24,
  XK: 20,
};

/** IBAN validation: country length and the ISO 7064 mod 97-10 check digits. */
export const ibanRecipe: Recipe = {
  id: "iban-check",
  title: "IBAN check",
  description: "Validate an IBAN international bank account number with its country length and mod 97 check digits",
  synonyms: ["iban", "bank", "account", "validate", "check", "mod97", "swift", "sepa", "banking", "format"],
  category: "validation",
  tags: ["iban", "banking", "validation"],
  parameters: () => ({}),
  build: () => ({
    name: "IBAN check",
    description: "Whether an IBAN (spaces ignored, any case) has its country's length and valid mod 97 check digits.",
    compute: String.raw`
const LENGTHS = ${JSON.stringify(LENGTHS)};
async function compute(input) {
  const iban = input.iban.replace(/\s+/g, "").toUpperCase();
  const country = /^[A-Z]{2}/.test(iban) ? iban.slice(0, 2) : null;
  if (!/^[A-Z]{2}[0-9]{2}[A-Z0-9]+$/.test(iban) || !country || LENGTHS[country] !== iban.length)
    return { valid: false, country, normalized: iban };
  const digits = (iban.slice(4) + iban.slice(0, 4)).replace(/[A-Z]/g, (c) => String(c.charCodeAt(0) - 55));
  let remainder = 0;
  for (let i = 0; i < digits.length; i += 7) remainder = Number(String(remainder) + digits.slice(i, i + 7)) % 97;
  return { valid: remainder === 1, country, normalized: iban };
}`,
    requestSchema: objectSchema({ iban: { type: "string", maxLength: 64 } }),
    responseSchema: objectSchema({
      valid: { type: "boolean" },
      country: { type: ["string", "null"] },
      normalized: { type: "string" },
    }),
    examples: [
      {
        input: { iban: "GB82 WEST 1234 5698 7654 32" },
        output: { valid: true, country: "GB", normalized: "GB82WEST12345698765432" },
      },
      {
        input: { iban: "de89 3704 0044 0532 0130 00" },
        output: { valid: true, country: "DE", normalized: "DE89370400440532013000" },
      },
      {
        input: { iban: "GB82 WEST 1234 5698 7654 33" },
        output: { valid: false, country: "GB", normalized: "GB82WEST12345698765433" },
      },
    ],
    edgeCases: [{ input: { iban: "" }, note: "the empty string is no IBAN" }],
    maxResponseBytes: 512,
  }),
};
