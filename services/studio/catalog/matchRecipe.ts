import type { Recipe } from "./recipe.ts";

const STOPWORDS = new Set(
  "a an and are as at be by for from give given i in into is it its me my of on or our return returns that the their them this to turn takes take with what which endpoint service api want need should create make build get gets".split(
    " ",
  ),
);

/**
 * Lowercase word stems of a text: split on anything but letters and digits, stop words dropped, a plural `s` cut.
 * @example tokens("Return the SHA-256 digests") // ["sha", "256", "digest"]
 */
export function tokens(text: string): string[] {
  return (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [])
    .filter((word) => !STOPWORDS.has(word))
    .map((word) => (word.length > 3 && word.endsWith("s") && !word.endsWith("ss") ? word.slice(0, -1) : word));
}

/** One recipe's BM25 score for a sentence, with the words that matched. */
export type RecipeScore = { recipe: Recipe; score: number; matched: string[] };

/** Added to the score of a recipe whose `prefer` pattern matches the sentence. */
export const BOOST = 5;

const K1 = 1.2;
const B = 0.75;

/**
 * Ranks the recipes for a sentence with BM25 over each recipe's title, description, synonyms and tags (IDF over the
 * catalog), best first; `matched` lists the sentence's words that counted, so the choice is explainable.
 * @example rankRecipes("Return the SHA-512 hex digest of a text", RECIPES)[0].recipe.id // "digest"
 */
export function rankRecipes(sentence: string, recipes: readonly Recipe[]): RecipeScore[] {
  const documents = recipes.map((recipe) =>
    tokens([recipe.title, recipe.description, ...recipe.synonyms, ...recipe.tags].join(" ")),
  );
  const averageLength = documents.reduce((sum, d) => sum + d.length, 0) / documents.length;
  const frequency = new Map<string, number>();
  for (const document of documents)
    for (const term of new Set(document)) frequency.set(term, (frequency.get(term) ?? 0) + 1);
  const query = [...new Set(tokens(sentence))];
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
      return { recipe, score: Math.round(score * 100) / 100, matched };
    })
    .sort((a, b) => b.score - a.score || a.recipe.id.localeCompare(b.recipe.id));
}
