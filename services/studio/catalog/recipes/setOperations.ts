import type { Recipe } from "../recipe.ts";
import { objectSchema, pickParameter } from "../recipe.ts";

const OPERATIONS: [RegExp, string][] = [
  [/\bintersect\w*|\bcommon\b|\bin both\b/i, "intersection"],
  [/\bsymmetric\b/i, "symmetricDifference"],
  [/\bdifference\b|\bsubtract\w*|\bminus\b|\bnot in\b|\bmissing\b/i, "difference"],
  [/\bunion\b|\bcombine\w*|\bmerge\w*/i, "union"],
];

const WORDS: Record<string, string> = {
  union: "union",
  intersection: "intersection",
  difference: "difference (a minus b)",
  symmetricDifference: "symmetric difference",
};

const item = { type: ["string", "number", "boolean", "null"] };
const list = { type: "array", items: item };

/** Union, intersection and differences of two lists of values, as sets (first occurrence order kept). */
export const setOperationsRecipe: Recipe = {
  id: "set-operations",
  title: "Set operations on lists",
  description:
    "Compute the union, intersection and difference of two lists as sets: the items in both, in either, or only in one",
  synonyms: [
    "union",
    "intersection",
    "intersect",
    "difference",
    "symmetric",
    "common",
    "both",
    "compare",
    "lists",
    "sets",
    "set",
    "merge",
    "combine",
    "overlap",
    "missing",
    "first",
    "second",
  ],
  category: "data",
  tags: ["list", "set", "compare"],
  parameters: (sentence) => ({ operation: pickParameter(sentence, OPERATIONS, "union") }),
  build: ({ operation = "union" }) => ({
    name: `List ${WORDS[operation] ?? operation}`,
    description: `The ${WORDS[operation] ?? operation} of lists "a" and "b" as a set: values compare by type and value, each once, in the order of their first occurrence.`,
    compute: String.raw`
const key = (v) => typeof v + ":" + String(v);
async function compute(input) {
  const unique = (xs) => { const seen = new Set(); return xs.filter((x) => !seen.has(key(x)) && seen.add(key(x))); };
  const a = unique(input.a), b = unique(input.b);
  const inA = new Set(a.map(key)), inB = new Set(b.map(key));
  const forms = {
    union: () => unique([...a, ...b]),
    intersection: () => a.filter((x) => inB.has(key(x))),
    difference: () => a.filter((x) => !inB.has(key(x))),
    symmetricDifference: () => [...a.filter((x) => !inB.has(key(x))), ...b.filter((x) => !inA.has(key(x)))],
  };
  const result = forms[PARAMS.operation]();
  return { result, count: result.length };
}`,
    requestSchema: objectSchema({
      a: { ...list, maxItems: 10_000 },
      b: { ...list, maxItems: 10_000 },
    }),
    responseSchema: objectSchema({ result: list, count: { type: "integer", minimum: 0 } }),
    examples: [
      {
        input: { a: [1, 2, 3, 2], b: [2, 3, 4] },
        output: { union: [1, 2, 3, 4], intersection: [2, 3], difference: [1], symmetricDifference: [1, 4] },
      },
      {
        input: { a: ["x", "1"], b: [1, "x"] },
        output: { union: ["x", "1", 1], intersection: ["x"], difference: ["1"], symmetricDifference: ["1", 1] },
      },
      {
        input: { a: [], b: [true, null] },
        output: { union: [true, null], intersection: [], difference: [], symmetricDifference: [true, null] },
      },
    ].map(({ input, output }) => {
      const result = output[operation as keyof typeof output];
      return { input, output: { result, count: result.length } };
    }),
    edgeCases: [{ input: { a: [0, -0], b: [] }, note: "0 and -0 are the same value" }],
    maxResponseBytes: 1_100_000,
  }),
};
