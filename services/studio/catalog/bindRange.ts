import { readRange } from "./meaning/readRange.ts";
import type { Recipe } from "./recipe.ts";

/**
 * The `minimum` and `maximum` parameters of a recipe with `limits`: the first range the sentence puts on its number
 * that lies within the limits and holds at least three values (one per example), or nothing (the limits stand).
 * @example bindRange("Roman numerals for numbers up to 100", { minimum: 1, maximum: 3999 }) // { minimum: "1", maximum: "100" }
 */
export function bindRange(sentence: string, limits: NonNullable<Recipe["limits"]>): Record<string, string> {
  for (const range of readRange(sentence)) {
    const minimum = Math.ceil(range.minimum ?? limits.minimum);
    const maximum = Math.floor(range.maximum ?? limits.maximum);
    if (minimum >= limits.minimum && maximum <= limits.maximum && maximum - minimum >= 2)
      return { minimum: String(minimum), maximum: String(maximum) };
  }
  return {};
}
