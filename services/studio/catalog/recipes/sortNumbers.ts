import type { Recipe } from "../recipe.ts";
import { objectSchema } from "../recipe.ts";

/** A list of numbers sorted by value, ascending or descending. */
export const sortNumbersRecipe: Recipe = {
  id: "sort-numbers",
  title: "Sort numbers",
  description: "Sort a list of numbers by numeric value in ascending or descending order",
  synonyms: [
    "sort",
    "order",
    "numeric",
    "numerically",
    "ascending",
    "descending",
    "smallest",
    "largest",
    "rank",
    "increasing",
    "decreasing",
    "lowest",
    "highest",
  ],
  category: "math",
  tags: ["sort", "numbers", "list"],
  parameters: (sentence) => ({
    order:
      /\b(?:desc|descending|decreasing|reverse|(?:largest|highest|biggest) (?:first|to (?:the )?(?:smallest|lowest))|high to low)\b/i.test(
        sentence,
      )
        ? "descending"
        : "ascending",
  }),
  build: ({ order = "ascending" }) => {
    const sort = (xs: number[]) => [...xs].sort((a, b) => (order === "descending" ? b - a : a - b));
    const samples = [[10, 9, 100, -1, 2.5], [], [3, 3, 1]];
    return {
      name: `Sort numbers ${order}`,
      description: `Sorts numbers by value in ${order} order (duplicates kept).`,
      compute: String.raw`
async function compute(input) {
  const numbers = [...input.numbers].sort((a, b) => (PARAMS.order === "descending" ? b - a : a - b));
  return { numbers };
}`,
      requestSchema: objectSchema({
        numbers: { type: "array", maxItems: 10_000, items: { type: "number", minimum: -1e15, maximum: 1e15 } },
      }),
      responseSchema: objectSchema({ numbers: { type: "array", items: { type: "number" } } }),
      examples: samples.map((numbers) => ({ input: { numbers }, output: { numbers: sort(numbers) } })),
      edgeCases: [{ input: { numbers: [0, -0.5, 0.5] }, note: "negative fractions before zero" }],
      maxResponseBytes: 260_000,
    };
  },
};
