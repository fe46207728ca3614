import { randomBytes } from "node:crypto";
import type { CodeWriter, EndpointContract } from "../contract.ts";
import { StudioError } from "../studioError.ts";
import { suggestPrice } from "../suggestPrice.ts";
import { rankRecipes } from "./matchRecipe.ts";
import type { Recipe } from "./recipe.ts";
import { handlerSource } from "./recipe.ts";
import { RECIPES } from "./recipes.ts";

/** Score below which no recipe is taken (BM25 over the catalog). */
export const MATCH_THRESHOLD = 5;

/** How to configure a model when the catalog has no recipe for a sentence. */
export const CONFIGURE_A_MODEL =
  "configure a model to write it: STUDIO_LLM_PROVIDER=openai (with STUDIO_LLM_URL, STUDIO_LLM_MODEL, STUDIO_LLM_KEY) or STUDIO_LLM_PROVIDER=anthropic (with STUDIO_LLM_KEY)";

function slugFor(recipe: Recipe, name: string): string {
  const words = name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "");
  return `${words || recipe.id}-${randomBytes(3).toString("hex")}`.slice(0, 64).replace(/-+$/, "");
}

/**
 * The embedded, offline code writer: it matches a sentence to one of the vetted recipes (BM25 above
 * `MATCH_THRESHOLD`), reads the recipe's parameters from the sentence, and writes the recipe's handler. Below the
 * threshold it refuses with the three closest recipes and how to configure a model.
 * @example const contract = await catalogWriter().specify("Return the SHA-512 hex digest of a text")
 */
export function catalogWriter(options: { recipes?: readonly Recipe[]; threshold?: number } = {}): CodeWriter {
  const recipes = options.recipes ?? RECIPES;
  const threshold = options.threshold ?? MATCH_THRESHOLD;
  const byId = new Map(recipes.map((recipe) => [recipe.id, recipe]));
  return {
    name: "catalog",
    async specify(sentence) {
      const ranked = rankRecipes(sentence, recipes);
      const best = ranked[0];
      if (!best || best.score < threshold) {
        const closest = ranked.slice(0, 3).map((r) => ({ recipe: r.recipe.id, title: r.recipe.title, score: r.score }));
        throw new StudioError(
          "specify",
          "no_match",
          `no catalog recipe matches this sentence (best score ${best?.score ?? 0} < ${threshold}); closest: ${closest
            .map((c) => `${c.title} (${c.score})`)
            .join(", ")}; ${CONFIGURE_A_MODEL}`,
          { closest },
        );
      }
      const parameters = best.recipe.parameters(sentence);
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
        origin: { provider: "catalog", recipe: best.recipe.id, parameters, score: best.score },
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
