import type { Recipe } from "../recipe.ts";
import { objectSchema, text } from "../recipe.ts";

/** Email addresses found in a text, deduplicated (case-insensitively) in order of appearance. */
export const extractEmailsRecipe: Recipe = {
  id: "extract-emails",
  title: "Extract email addresses",
  description: "Extract every email address found in a text",
  synonyms: ["email", "emails", "e-mail", "address", "addresses", "extract", "find", "regex", "list"],
  category: "extraction",
  tags: ["email", "extract", "regex"],
  parameters: () => ({}),
  build: () => ({
    name: "Extract emails",
    description: "Every email address in a text, deduplicated case-insensitively, in order of appearance.",
    compute: String.raw`
async function compute(input) {
  const seen = new Set();
  const emails = [];
  for (const match of input.text.matchAll(/[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}/g)) {
    const key = match[0].toLowerCase();
    if (!seen.has(key)) { seen.add(key); emails.push(match[0]); }
  }
  return { emails, count: emails.length };
}`,
    requestSchema: objectSchema({ text: text(100_000) }),
    responseSchema: objectSchema({
      emails: { type: "array", items: { type: "string", pattern: "@" } },
      count: { type: "integer", minimum: 0 },
    }),
    examples: [
      {
        input: { text: "Write to ann@example.com or Bob.Smith@mail.example.org." },
        output: { emails: ["ann@example.com", "Bob.Smith@mail.example.org"], count: 2 },
      },
      { input: { text: "no addresses here" }, output: { emails: [], count: 0 } },
      { input: { text: "a@b.io, A@B.IO" }, output: { emails: ["a@b.io"], count: 1 } },
    ],
    edgeCases: [{ input: { text: "@example.com" }, note: "no local part, no address" }],
    maxResponseBytes: 200_000,
  }),
};
