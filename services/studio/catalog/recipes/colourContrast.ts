import { COLOUR_SOURCE } from "../colourSource.ts";
import type { Recipe } from "../recipe.ts";
import { objectSchema } from "../recipe.ts";

/** The WCAG 2 contrast ratio of two colours and the levels it passes. */
export const colourContrastRecipe: Recipe = {
  id: "colour-contrast",
  title: "Colour contrast ratio",
  description:
    "Compute the WCAG contrast ratio between a text colour and a background colour and whether it passes AA and AAA accessibility",
  synonyms: [
    "contrast",
    "ratio",
    "wcag",
    "accessibility",
    "a11y",
    "readable",
    "legible",
    "foreground",
    "background",
    "color",
    "colour",
    "hex",
  ],
  category: "validation",
  tags: ["colour", "accessibility", "wcag"],
  parameters: () => ({}),
  build: () => ({
    name: "Colour contrast ratio",
    description:
      "The WCAG 2 contrast ratio (1 to 21, two decimals) of two colours (#rgb, #rrggbb or rgb(r, g, b)) and whether it passes AA (4.5, large text 3) and AAA (7, large text 4.5).",
    compute: String.raw`
${COLOUR_SOURCE}
function luminance(rgb) {
  const [r, g, b] = rgb.map((x) => { const c = x / 255; return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}
async function compute(input) {
  const a = parseColour(input.foreground), b = parseColour(input.background);
  if (!a || !b) return { valid: false, ratio: null, aa: null, aaLarge: null, aaa: null, aaaLarge: null };
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  const exact = (hi + 0.05) / (lo + 0.05);
  return { valid: true, ratio: Math.round(exact * 100) / 100, aa: exact >= 4.5, aaLarge: exact >= 3, aaa: exact >= 7, aaaLarge: exact >= 4.5 };
}`,
    requestSchema: objectSchema({
      foreground: { type: "string", maxLength: 64 },
      background: { type: "string", maxLength: 64 },
    }),
    responseSchema: objectSchema({
      valid: { type: "boolean" },
      ratio: { type: ["number", "null"], minimum: 1, maximum: 21 },
      aa: { type: ["boolean", "null"] },
      aaLarge: { type: ["boolean", "null"] },
      aaa: { type: ["boolean", "null"] },
      aaaLarge: { type: ["boolean", "null"] },
    }),
    examples: [
      {
        input: { foreground: "#000", background: "#ffffff" },
        output: { valid: true, ratio: 21, aa: true, aaLarge: true, aaa: true, aaaLarge: true },
      },
      {
        input: { foreground: "#777777", background: "#ffffff" },
        output: { valid: true, ratio: 4.48, aa: false, aaLarge: true, aaa: false, aaaLarge: false },
      },
      {
        input: { foreground: "rgb(0, 0, 255)", background: "#fff" },
        output: { valid: true, ratio: 8.59, aa: true, aaLarge: true, aaa: true, aaaLarge: true },
      },
      {
        input: { foreground: "navy", background: "#fff" },
        output: { valid: false, ratio: null, aa: null, aaLarge: null, aaa: null, aaaLarge: null },
      },
    ],
    edgeCases: [{ input: { foreground: "#abc", background: "#abc" }, note: "the same colour twice is 1:1" }],
    maxResponseBytes: 160,
  }),
};
