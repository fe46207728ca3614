import type { Recipe } from "./recipe.ts";
import { tokens } from "./tokens.ts";

/**
 * One recipe's BM25 score for a sentence, the sentence's words that counted, and the words that name an operation
 * or an object which the recipe's vocabulary does not explain (as the sentence wrote them).
 */
export type RecipeScore = { recipe: Recipe; score: number; matched: string[]; unexplained: string[] };

/** Added to the score of a recipe whose `prefer` pattern matches the sentence (ranking only: never coverage). */
export const BOOST = 5;

/** Score below which no recipe is taken, even one that explains every word (BM25 over the catalog). */
export const MATCH_THRESHOLD = 3;

const K1 = 1.2;
const B = 0.75;

const TYPE_WORDS: Record<string, string> = { string: "text", number: "number", integer: "number", array: "list" };

/** The words of a request schema: its property names ("birthDate" is "birth date") and the kinds of their values. */
function schemaWords(schema: Record<string, unknown>): string[] {
  const properties = (schema.properties ?? {}) as Record<string, Record<string, unknown>>;
  return Object.entries(properties).flatMap(([name, property]) => {
    const items = (property.items ?? {}) as Record<string, unknown>;
    const types = [property.type, items.type].flat().filter((t): t is string => typeof t === "string");
    return [name.replace(/([a-z])([A-Z])/g, "$1 $2"), ...types.flatMap((t) => TYPE_WORDS[t] ?? [])];
  });
}

const vocabularies = new WeakMap<Recipe, string[]>();

/**
 * The words a recipe answers to: its title, description, synonyms (which hold its parameters' words) and tags, and
 * the words of its request schema (so "string" is explained by a recipe that takes text).
 */
function vocabulary(recipe: Recipe): string[] {
  const known = vocabularies.get(recipe);
  if (known) return known;
  const { requestSchema } = recipe.build(recipe.parameters(""));
  const words = [recipe.title, recipe.description, ...recipe.synonyms, ...recipe.tags, ...schemaWords(requestSchema)];
  const stems = tokens(words.join(" ")).map((t) => t.stem);
  vocabularies.set(recipe, stems);
  return stems;
}

/**
 * Ranks the recipes for a sentence with BM25 over each recipe's vocabulary (IDF over the catalog), best first, and
 * lists for each the sentence's words that name an operation or an object but are not in its vocabulary.
 * @example rankRecipes("Return the SHA-512 hex digest of a text", RECIPES)[0].recipe.id // "digest"
 */
export function rankRecipes(sentence: string, recipes: readonly Recipe[]): RecipeScore[] {
  const documents = recipes.map(vocabulary);
  const averageLength = documents.reduce((sum, d) => sum + d.length, 0) / documents.length;
  const frequency = new Map<string, number>();
  for (const document of documents)
    for (const term of new Set(document)) frequency.set(term, (frequency.get(term) ?? 0) + 1);
  const words = tokens(sentence);
  const query = [...new Set(words.map((t) => t.stem))];
  return recipes
    .map((recipe, i) => {
      const document = documents[i] ?? [];
      let score = 0;
      const matched: string[] = [];
      for (const term of query) {
        const tf = document.filter((t) => t === term).length;
        if (tf === 0) continue;
        const n = frequency.get(term) ?? 0;
        const idf = Math.log(1 + (recipes.length - n + 0.5) / (n + 0.5));
        score += (idf * tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * document.length) / averageLength));
        matched.push(term);
      }
      if (score > 0 && recipe.prefer?.test(sentence)) score += BOOST;
      const known = new Set(document);
      const missing = words.filter((t) => t.names && !known.has(t.stem)).map((t) => t.word);
      const unexplained = missing.filter((w, j) => missing.findIndex((v) => v.toLowerCase() === w.toLowerCase()) === j);
      return { recipe, score: Math.round(score * 100) / 100, matched, unexplained };
    })
    .sort((a, b) => b.score - a.score || a.recipe.id.localeCompare(b.recipe.id));
}

/** The recipe a sentence asks for, or the closest recipes when none explains it. */
export type RecipeMatch = { match: RecipeScore; closest?: undefined } | { match?: undefined; closest: RecipeScore[] };

/**
 * The best-ranked recipe that explains every word of the sentence naming an operation or an object ("palindrome",
 * "reverse", "words"), with a BM25 score of at least `threshold`; otherwise the three best-ranked recipes, each with
 * the words it does not explain. A `prefer` boost reorders recipes that explain the sentence, never rescues one that
 * does not.
 * @example matchRecipe("Check whether a string is a palindrome", RECIPES).match?.recipe.id // "palindrome-check"
 */
export function matchRecipe(sentence: string, recipes: readonly Recipe[], threshold = MATCH_THRESHOLD): RecipeMatch {
  const ranked = rankRecipes(sentence, recipes);
  const names = tokens(sentence).some((t) => t.names);
  const match = ranked.find((r) => names && r.unexplained.length === 0 && r.score >= threshold);
  return match ? { match } : { closest: ranked.slice(0, 3) };
}
