import type { Recipe } from "../recipe.ts";
import { objectSchema, text } from "../recipe.ts";

/** The shift read from a sentence: ROT13 unless a shift ("by 3", "shift of 5") is named; decoding shifts back. */
function shiftOf(sentence: string): string {
  const named = /\brot-?13\b/i.test(sentence)
    ? 13
    : Number(/\b(?:by|shift(?: of)?|key(?: of)?)\s+(\d{1,2})\b/i.exec(sentence)?.[1] ?? 3);
  const back = /\bdec(?:ode|rypt)|\bdecipher/i.test(sentence);
  return String((((back ? 26 - (named % 26) : named) % 26) + 26) % 26);
}

/** The Caesar cipher (ROT13 is its shift of 13) over the Latin letters of a text. */
export const caesarCipherRecipe: Recipe = {
  id: "caesar-cipher",
  title: "Caesar cipher",
  description: "Encode or decode a text with the Caesar cipher or ROT13, shifting each letter along the alphabet",
  synonyms: [
    "caesar",
    "rot13",
    "cipher",
    "encrypt",
    "decrypt",
    "decipher",
    "shift",
    "rotate",
    "obfuscate",
    "message",
    "key",
  ],
  category: "encoding",
  tags: ["cipher", "rot13", "encoding"],
  parameters: (sentence) => ({ shift: shiftOf(sentence) }),
  build: ({ shift = "3" }) => {
    const k = Number(shift);
    const rotate = (t: string, by: number) =>
      t.replace(/[a-z]/gi, (c) => {
        const a = c <= "Z" ? 65 : 97;
        return String.fromCharCode(((c.charCodeAt(0) - a + by) % 26) + a);
      });
    return {
      name: k === 13 ? "ROT13" : `Caesar shift ${k}`,
      description: `Shifts each Latin letter ${k} places along the alphabet (or by "shift", 0 to 25), keeping its case; other characters are kept.`,
      compute: String.raw`
async function compute(input) {
  const by = input.shift === undefined ? Number(PARAMS.shift) : input.shift;
  const result = input.text.replace(/[a-z]/gi, (c) => {
    const a = c <= "Z" ? 65 : 97;
    return String.fromCharCode(((c.charCodeAt(0) - a + by) % 26) + a);
  });
  return { result, shift: by };
}`,
      requestSchema: objectSchema({ text: text(50_000), shift: { type: "integer", minimum: 0, maximum: 25 } }, [
        "shift",
      ]),
      responseSchema: objectSchema({ result: { type: "string" }, shift: { type: "integer", minimum: 0, maximum: 25 } }),
      examples: [
        { input: { text: "Hello, World!" }, output: { result: rotate("Hello, World!", k), shift: k } },
        {
          input: { text: "Why did the chicken cross the road?" },
          output: { result: rotate("Why did the chicken cross the road?", k), shift: k },
        },
        { input: { text: "abc xyz", shift: 1 }, output: { result: "bcd yza", shift: 1 } },
      ],
      edgeCases: [{ input: { text: "", shift: 0 }, note: "an empty text and no shift" }],
      maxResponseBytes: 350_000,
    };
  },
};
