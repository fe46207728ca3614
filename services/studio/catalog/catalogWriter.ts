import { randomBytes } from "node:crypto";
import type { CodeWriter, EndpointContract } from "../contract.ts";
import { StudioError } from "../studioError.ts";
import { suggestPrice } from "../suggestPrice.ts";
import type { RecipeScore } from "./matchRecipe.ts";
import { MATCH_THRESHOLD, matchRecipe } from "./matchRecipe.ts";
import type { Recipe } from "./recipe.ts";
import { handlerSource } from "./recipe.ts";
import { RECIPES } from "./recipes.ts";

/** How to configure a model when the catalog has no recipe for a sentence. */
export const CONFIGURE_A_MODEL =
  "configure a model to write it: STUDIO_LLM_PROVIDER=openai (with STUDIO_LLM_URL, STUDIO_LLM_MODEL, STUDIO_LLM_KEY) or STUDIO_LLM_PROVIDER=anthropic (with STUDIO_LLM_KEY)";

/** One line of a refusal: what a close recipe does and which words of the sentence it does not explain. */
function closeLine(r: RecipeScore, threshold: number): string {
  const words = r.unexplained.map((w) => `"${w}"`).join(", ");
  const why = words
    ? `does not explain ${words}`
    : !r.explainsOperation
      ? "does not name what the sentence asks to be done"
      : r.score < threshold
        ? `a weak match (score ${r.score}, ${threshold} needed)`
        : "not listed for this sentence";
  return `  - ${r.recipe.title} (${r.recipe.id}): ${r.recipe.description}; ${why}`;
}

function slugFor(recipe: Recipe, name: string): string {
  const words = name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "");
  return `${words || recipe.id}-${randomBytes(3).toString("hex")}`.slice(0, 64).replace(/-+$/, "");
}

/** A recipe the creator accepted for a sentence although it does not explain these words of it. */
export type AcceptedRecipe = { recipe: string; words: string[] };

/**
 * The embedded, offline code writer: it takes the recipe that explains what the sentence asks (`matchRecipe`), reads
 * the recipe's parameters from the sentence, and writes the recipe's handler. When no recipe does, it refuses
 * (`no_match`) with the three closest recipes, what each does and which words it does not explain, how to configure
 * a model, and (`details.ask`) the recipe to ask the creator about when one explains what is to be done but not a
 * word or two. `accept` is the creator's answer: that recipe is listed although it does not explain those words.
 * @example const contract = await catalogWriter().specify("Return the SHA-512 hex digest of a text")
 */
export function catalogWriter(
  options: { recipes?: readonly Recipe[]; threshold?: number; accept?: AcceptedRecipe } = {},
): CodeWriter {
  const recipes = options.recipes ?? RECIPES;
  const threshold = options.threshold ?? MATCH_THRESHOLD;
  const byId = new Map(recipes.map((recipe) => [recipe.id, recipe]));
  return {
    name: "catalog",
    async specify(sentence) {
      const { match, closest, ask, sentence: corrected } = matchRecipe(sentence, recipes, threshold);
      const accepted =
        ask &&
        ask.recipe.id === options.accept?.recipe &&
        ask.unexplained.every((word) => options.accept?.words.includes(word))
          ? ask
          : undefined;
      const best = match ?? accepted;
      if (!best) {
        const near = closest ?? [];
        const lines = near.map((r) => closeLine(r, threshold)).join("\n");
        throw new StudioError(
          "specify",
          "no_match",
          `no catalog recipe does what this sentence asks; the closest:\n${lines}\n${CONFIGURE_A_MODEL}`,
          {
            closest: near.map((r) => ({
              recipe: r.recipe.id,
              title: r.recipe.title,
              does: r.recipe.description,
              score: r.score,
              unexplained: r.unexplained,
            })),
            ...(ask && {
              ask: {
                recipe: ask.recipe.id,
                title: ask.recipe.title,
                does: ask.recipe.description,
                unexplained: ask.unexplained,
              },
            }),
          },
        );
      }
      const parameters = best.recipe.parameters(corrected);
      const build = best.recipe.build(parameters);
      return {
        slug: slugFor(best.recipe, build.name),
        name: build.name,
        description: build.description,
        category: best.recipe.category,
        tags: best.recipe.tags,
        requestSchema: build.requestSchema,
        responseSchema: build.responseSchema,
        examples: build.examples,
        edgeCases: build.edgeCases,
        maxResponseBytes: build.maxResponseBytes,
        price: suggestPrice({ maxResponseBytes: build.maxResponseBytes }),
        origin: {
          provider: "catalog",
          recipe: best.recipe.id,
          parameters,
          score: best.score,
          ...(accepted && { accepted: accepted.unexplained }),
        },
      } satisfies EndpointContract;
    },
    async write(contract) {
      const recipe = byId.get(contract.origin.recipe ?? "");
      if (!recipe)
        throw new StudioError("write", "unknown_recipe", `the catalog has no recipe "${contract.origin.recipe}"`);
      const parameters = contract.origin.parameters ?? {};
      return handlerSource(parameters, recipe.build(parameters).compute);
    },
  };
}
