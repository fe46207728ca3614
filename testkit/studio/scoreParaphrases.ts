import type { CodeWriter } from "../../services/studio/contract.ts";
import { StudioError } from "../../services/studio/studioError.ts";
import type { Paraphrase } from "./paraphrases.ts";

/** One sentence's outcome: listed (with the recipe and parameters) or refused (with the closest recipes named). */
export type ParaphraseOutcome = {
  sentence: string;
  expected: string;
  parameters?: Record<string, string>;
  listed?: { recipe: string; parameters: Record<string, string> };
  closest?: string[];
  verdict: "right" | "wrong" | "missed" | "refused";
};

/** Precision and recall of a writer over a paraphrase set, and each sentence's outcome. */
export type ParaphraseScore = {
  sentences: number;
  withRecipe: number;
  listed: number;
  right: number;
  precision: number;
  recall: number;
  refusalsNamingClosest: number;
  refusals: number;
  outcomes: ParaphraseOutcome[];
};

/**
 * Runs each sentence through a writer's `specify` and scores it: a listing is right when its recipe is the expected
 * one and every parameter the set names has the expected value; precision is right over listed, recall right over
 * the sentences that have a recipe. A refusal must be the catalog's `no_match` naming its closest recipes.
 * @example const { precision, recall } = await scoreParaphrases(PARAPHRASES, catalogWriter())
 */
export async function scoreParaphrases(set: readonly Paraphrase[], writer: CodeWriter): Promise<ParaphraseScore> {
  const outcomes: ParaphraseOutcome[] = [];
  for (const [sentence, expected, parameters] of set) {
    try {
      const contract = await writer.specify(sentence);
      const listed = { recipe: contract.origin.recipe ?? "", parameters: contract.origin.parameters ?? {} };
      const right =
        listed.recipe === expected &&
        Object.entries(parameters ?? {}).every(([key, value]) => listed.parameters[key] === value);
      outcomes.push({ sentence, expected, parameters, listed, verdict: right ? "right" : "wrong" });
    } catch (error) {
      if (!(error instanceof StudioError) || error.code !== "no_match") throw error;
      const closest = ((error.data.closest ?? []) as { recipe: string }[]).map((c) => c.recipe);
      outcomes.push({ sentence, expected, parameters, closest, verdict: expected === "refuse" ? "refused" : "missed" });
    }
  }
  const listed = outcomes.filter((o) => o.listed).length;
  const right = outcomes.filter((o) => o.verdict === "right").length;
  const withRecipe = outcomes.filter((o) => o.expected !== "refuse").length;
  const refused = outcomes.filter((o) => o.closest);
  return {
    sentences: outcomes.length,
    withRecipe,
    listed,
    right,
    precision: listed === 0 ? 1 : right / listed,
    recall: withRecipe === 0 ? 1 : right / withRecipe,
    refusals: refused.length,
    refusalsNamingClosest: refused.filter((o) => (o.closest?.length ?? 0) === 3).length,
    outcomes,
  };
}
