import { COLOUR_SOURCE } from "../colourSource.ts";
import type { Recipe } from "../recipe.ts";
import { objectSchema } from "../recipe.ts";

const byte = { type: "integer", minimum: 0, maximum: 255 };

/** A colour given as #rgb, #rrggbb or rgb(r, g, b), in hex, RGB and HSL. */
export const convertColourRecipe: Recipe = {
  id: "colour-convert",
  title: "Colour conversion",
  description: "Convert a colour between hex, RGB and HSL notations",
  synonyms: ["color", "colour", "hex", "rgb", "hsl", "convert", "css", "palette", "hue", "saturation"],
  category: "conversion",
  tags: ["colour", "color", "css"],
  parameters: () => ({}),
  build: () => ({
    name: "Colour conversion",
    description: "Reads #rgb, #rrggbb or rgb(r, g, b) and answers hex, RGB and HSL (whole degrees and percents).",
    compute: String.raw`
${COLOUR_SOURCE}
async function compute(input) {
  const rgb = parseColour(input.colour);
  if (!rgb) return { valid: false };
  const [r, g, b] = rgb.map((x) => x / 255);
  const max = Math.max(r, g, b), min = Math.min(r, g, b), l = (max + min) / 2, d = max - min;
  let h = 0, s = 0;
  if (d) {
    s = d / (1 - Math.abs(2 * l - 1));
    h = max === r ? ((g - b) / d) % 6 : max === g ? (b - r) / d + 2 : (r - g) / d + 4;
    h = (h * 60 + 360) % 360;
  }
  return {
    valid: true,
    hex: "#" + rgb.map((x) => x.toString(16).padStart(2, "0")).join(""),
    rgb: { r: rgb[0], g: rgb[1], b: rgb[2] },
    hsl: { h: Math.round(h) % 360, s: Math.round(s * 100), l: Math.round(l * 100) },
  };
}`,
    requestSchema: objectSchema({ colour: { type: "string", maxLength: 64 } }),
    responseSchema: {
      type: "object",
      additionalProperties: false,
      required: ["valid"],
      properties: {
        valid: { type: "boolean" },
        hex: { type: "string", pattern: "^#[0-9a-f]{6}$" },
        rgb: objectSchema({ r: byte, g: byte, b: byte }),
        hsl: objectSchema({
          h: { type: "integer", minimum: 0, maximum: 359 },
          s: { type: "integer", minimum: 0, maximum: 100 },
          l: { type: "integer", minimum: 0, maximum: 100 },
        }),
      },
    },
    examples: [
      {
        input: { colour: "#ff0000" },
        output: { valid: true, hex: "#ff0000", rgb: { r: 255, g: 0, b: 0 }, hsl: { h: 0, s: 100, l: 50 } },
      },
      {
        input: { colour: "rgb(0, 128, 255)" },
        output: { valid: true, hex: "#0080ff", rgb: { r: 0, g: 128, b: 255 }, hsl: { h: 210, s: 100, l: 50 } },
      },
      {
        input: { colour: "#fff" },
        output: { valid: true, hex: "#ffffff", rgb: { r: 255, g: 255, b: 255 }, hsl: { h: 0, s: 0, l: 100 } },
      },
    ],
    edgeCases: [{ input: { colour: "blue" }, note: "named colours are not read: valid false" }],
    maxResponseBytes: 512,
  }),
};
