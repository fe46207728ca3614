import type { Recipe } from "../recipe.ts";
import { objectSchema } from "../recipe.ts";

/** A list of strings sorted (code-point order) and optionally deduplicated. */
export const sortListRecipe: Recipe = {
  id: "sort-list",
  title: "Sort and deduplicate",
  description: "Sort a list of strings and remove duplicate entries",
  synonyms: [
    "sort",
    "order",
    "alphabetical",
    "lexicographic",
    "ascending",
    "descending",
    "dedupe",
    "deduplicate",
    "unique",
    "duplicates",
    "list",
    "words",
    "names",
  ],
  category: "data",
  tags: ["sort", "dedupe", "list"],
  parameters: (sentence) => ({
    order: /\b(?:desc|descending|reverse|z to a)\b/i.test(sentence) ? "descending" : "ascending",
    dedupe: /\bsort\b/i.test(sentence) && !/dedup|unique|duplicate|distinct/i.test(sentence) ? "no" : "yes",
  }),
  build: ({ order = "ascending", dedupe = "yes" }) => {
    const sort = (items: string[]) => {
      const kept = dedupe === "yes" ? [...new Set(items)] : [...items];
      kept.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
      return order === "descending" ? kept.reverse() : kept;
    };
    const samples = [["pear", "apple", "pear", "Banana"], [], ["b", "a", "b", "a", "c"]];
    return {
      name: `Sort list ${order}${dedupe === "yes" ? " without duplicates" : ""}`,
      description: `Sorts strings in ${order} code-point order${dedupe === "yes" ? " and removes duplicates" : ""}.`,
      compute: String.raw`
async function compute(input) {
  const items = PARAMS.dedupe === "yes" ? [...new Set(input.items)] : [...input.items];
  items.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  if (PARAMS.order === "descending") items.reverse();
  return { items, removed: input.items.length - items.length };
}`,
      requestSchema: objectSchema({
        items: { type: "array", maxItems: 10_000, items: { type: "string", maxLength: 1_000 } },
      }),
      responseSchema: objectSchema({
        items: { type: "array", items: { type: "string" } },
        removed: { type: "integer", minimum: 0 },
      }),
      examples: samples.map((items) => ({
        input: { items },
        output: { items: sort(items), removed: items.length - sort(items).length },
      })),
      edgeCases: [{ input: { items: ["a", "A"] }, note: "upper case sorts before lower case" }],
      maxResponseBytes: 400_000,
    };
  },
};
