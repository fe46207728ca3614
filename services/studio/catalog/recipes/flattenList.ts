import type { Recipe } from "../recipe.ts";
import { objectSchema } from "../recipe.ts";

/** A nested list flattened into one list, fully or to a given depth. */
export const flattenListRecipe: Recipe = {
  id: "flatten-list",
  title: "Flatten a list",
  description: "Flatten a nested list of lists into a single flat list, fully or to a given depth",
  synonyms: ["flatten", "flat", "nested", "unnest", "lists", "list", "depth", "merge", "concat", "concatenate"],
  category: "data",
  tags: ["list", "flatten"],
  parameters: () => ({}),
  build: () => ({
    name: "Flatten a list",
    description:
      'Flattens nested lists of JSON values into one list, order kept, all the way down or "depth" levels (iteratively, so any nesting depth is fine).',
    compute: String.raw`
async function compute(input) {
  const max = input.depth === undefined ? Infinity : input.depth;
  const items = [];
  const stack = [[input.items, 0, 0]];
  while (stack.length) {
    const top = stack[stack.length - 1];
    const [list, index, depth] = top;
    if (index >= list.length) { stack.pop(); continue; }
    top[1]++;
    const value = list[index];
    if (Array.isArray(value) && depth < max) stack.push([value, 0, depth + 1]);
    else items.push(value);
  }
  return { items, count: items.length };
}`,
    requestSchema: objectSchema(
      { items: { type: "array", maxItems: 10_000 }, depth: { type: "integer", minimum: 0, maximum: 1_000 } },
      ["depth"],
    ),
    responseSchema: objectSchema({ items: { type: "array" }, count: { type: "integer", minimum: 0 } }),
    examples: [
      { input: { items: [1, [2, [3, [4]]], 5] }, output: { items: [1, 2, 3, 4, 5], count: 5 } },
      { input: { items: [1, [2, [3, [4]]], 5], depth: 1 }, output: { items: [1, 2, [3, [4]], 5], count: 4 } },
      { input: { items: [[], ["a"], [[]]] }, output: { items: ["a"], count: 1 } },
    ],
    edgeCases: [{ input: { items: [{ a: [1] }], depth: 0 }, note: "objects are not flattened" }],
    maxResponseBytes: 1_100_000,
  }),
};
