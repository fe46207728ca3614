import type { Recipe } from "../recipe.ts";
import { objectSchema, pickParameter } from "../recipe.ts";

/** International Morse code (ITU-R M.1677-1): letters, digits and common punctuation. */
const MORSE: Record<string, string> = {
  a: ".-",
  b: "-...",
  c: "-.-.",
  d: "-..",
  e: ".",
  f: "..-.",
  g: "--.",
  h: "....",
  i: "..",
  j: ".---",
  k: "-.-",
  l: ".-..",
  m: "--",
  n: "-.",
  o: "---",
  p: ".--.",
  q: "--.-",
  r: ".-.",
  s: "...",
  t: "-",
  u: "..-",
  v: "...-",
  w: ".--",
  x: "-..-",
  y: "-.--",
  z: "--..",
  "0": "-----",
  "1": ".----",
  "2": "..---",
  "3": "...--",
  "4": "....-",
  "5": ".....",
  "6": "-....",
  "7": "--...",
  "8": "---..",
  "9": "----.",
  ".": ".-.-.-",
  ",": "--..--",
  "?": "..--..",
  "'": ".----.",
  "!": "-.-.--",
  "/": "-..-.",
  "(": "-.--.",
  ")": "-.--.-",
  "&": ".-...",
  ":": "---...",
  ";": "-.-.-.",
  "=": "-...-",
  "+": ".-.-.",
  "-": "-....-",
  _: "..--.-",
  '"': ".-..-.",
  $: "...-..-",
  "@": ".--.-.",
};

/** Text to Morse code (letters separated by spaces, words by " / "), or Morse code back to text. */
export const morseCodeRecipe: Recipe = {
  id: "morse-code",
  title: "Morse code",
  description: "Translate a text to international Morse code, or decode Morse code back to text",
  synonyms: ["morse", "code", "telegraph", "dots", "dashes", "encode", "decode", "convert", "signal"],
  category: "encoding",
  tags: ["morse", "encoding"],
  parameters: (sentence) => ({
    mode: pickParameter(
      sentence,
      [[/decod|from morse|morse (?:code )?(?:back )?(?:in)?to|\bback (?:in)?to\b/i, "decode"]],
      "encode",
    ),
  }),
  build: ({ mode = "encode" }) =>
    mode === "decode"
      ? {
          name: "Morse decode",
          description:
            'Decodes Morse code (letters separated by spaces, words by "/") to upper-case text; an unknown sequence becomes "?" and is listed.',
          compute: String.raw`
const LETTERS = Object.fromEntries(Object.entries(${JSON.stringify(MORSE)}).map(([c, m]) => [m, c.toUpperCase()]));
async function compute(input) {
  const unknown = [];
  const words = input.morse.trim().split(/\s*\/\s*/).filter(Boolean).map((word) =>
    word.split(/\s+/).map((m) => { if (m in LETTERS) return LETTERS[m]; unknown.push(m); return "?"; }).join(""));
  return { text: words.join(" "), unknown };
}`,
          requestSchema: objectSchema({ morse: { type: "string", maxLength: 50_000, pattern: "^[.\\- /]*$" } }),
          responseSchema: objectSchema({
            text: { type: "string" },
            unknown: { type: "array", items: { type: "string" } },
          }),
          examples: [
            { input: { morse: "... --- ..." }, output: { text: "SOS", unknown: [] } },
            {
              input: { morse: ".... . .-.. .-.. --- / .-- --- .-. .-.. -.." },
              output: { text: "HELLO WORLD", unknown: [] },
            },
            { input: { morse: ".-.-.-.- -" }, output: { text: "?T", unknown: [".-.-.-.-"] } },
          ],
          edgeCases: [{ input: { morse: " / " }, note: "only separators decode to nothing" }],
          maxResponseBytes: 120_000,
        }
      : {
          name: "Morse encode",
          description:
            'Encodes a text in international Morse code: letters separated by spaces, words by " / "; characters Morse has no code for are skipped and listed.',
          compute: String.raw`
const MORSE = ${JSON.stringify(MORSE)};
async function compute(input) {
  const skipped = [];
  const words = input.text.toLowerCase().split(/\s+/).filter(Boolean).map((word) =>
    Array.from(word).flatMap((c) => { if (c in MORSE) return [MORSE[c]]; if (!skipped.includes(c)) skipped.push(c); return []; }).join(" "))
    .filter(Boolean);
  return { morse: words.join(" / "), skipped };
}`,
          requestSchema: objectSchema({ text: { type: "string", maxLength: 10_000 } }),
          responseSchema: objectSchema({
            morse: { type: "string", pattern: "^[.\\- /]*$" },
            skipped: { type: "array", items: { type: "string" } },
          }),
          examples: [
            { input: { text: "SOS" }, output: { morse: "... --- ...", skipped: [] } },
            {
              input: { text: "Hello world" },
              output: { morse: ".... . .-.. .-.. --- / .-- --- .-. .-.. -..", skipped: [] },
            },
            { input: { text: "é 42" }, output: { morse: "....- ..---", skipped: ["é"] } },
          ],
          edgeCases: [{ input: { text: "   " }, note: "only spaces encode to nothing" }],
          maxResponseBytes: 200_000,
        },
};
