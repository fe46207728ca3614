import type { Recipe } from "../recipe.ts";
import { objectSchema } from "../recipe.ts";

/** A list split into consecutive chunks of a given size. */
export const chunkListRecipe: Recipe = {
  id: "chunk-list",
  title: "Chunk a list",
  description: "Split a list of items into chunks, batches or groups of a given size",
  synonyms: [
    "chunk",
    "chunks",
    "batch",
    "batches",
    "split",
    "group",
    "groups",
    "partition",
    "paginate",
    "pages",
    "size",
    "items",
    "list",
  ],
  category: "data",
  tags: ["list", "chunk", "batch"],
  parameters: () => ({}),
  build: () => ({
    name: "Chunk a list",
    description:
      'Splits a list of JSON values into consecutive chunks of "size" items (the last may be shorter), order kept.',
    compute: String.raw`
async function compute(input) {
  const chunks = [];
  for (let i = 0; i < input.items.length; i += input.size) chunks.push(input.items.slice(i, i + input.size));
  return { chunks, count: chunks.length };
}`,
    requestSchema: objectSchema({
      items: { type: "array", maxItems: 10_000 },
      size: { type: "integer", minimum: 1, maximum: 10_000 },
    }),
    responseSchema: objectSchema({
      chunks: { type: "array", items: { type: "array", minItems: 1 } },
      count: { type: "integer", minimum: 0 },
    }),
    examples: [
      { input: { items: [1, 2, 3, 4, 5], size: 2 }, output: { chunks: [[1, 2], [3, 4], [5]], count: 3 } },
      { input: { items: ["a", "b", "c"], size: 3 }, output: { chunks: [["a", "b", "c"]], count: 1 } },
      { input: { items: [], size: 4 }, output: { chunks: [], count: 0 } },
    ],
    edgeCases: [{ input: { items: [{ a: 1 }, null], size: 1 }, note: "objects and null are items too" }],
    maxResponseBytes: 1_100_000,
  }),
};
