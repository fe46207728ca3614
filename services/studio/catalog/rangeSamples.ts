import type { Recipe } from "./recipe.ts";

/**
 * Three inputs for a recipe's examples within its bound range: its smallest, its largest and, of `preferred`, the
 * first strictly inside (else the middle value).
 * @example rangeSamples({ minimum: "1", maximum: "100" }, { minimum: 1, maximum: 3999 }, [1994, 4]) // [4, 1, 100]
 */
export function rangeSamples(
  parameters: Record<string, string | undefined>,
  limits: NonNullable<Recipe["limits"]>,
  preferred: number[],
): [number, number, number] {
  const minimum = Number(parameters.minimum ?? limits.minimum);
  const maximum = Number(parameters.maximum ?? limits.maximum);
  const inside = preferred.find((n) => n > minimum && n < maximum) ?? Math.floor((minimum + maximum) / 2);
  return [inside, minimum, maximum];
}
