import type { CreatorWords } from "./endpoint.ts";

/** How many of a card's tags a skill's description names, and the longest one it takes. */
export const CREATOR_KEYWORDS_LIMITS = { count: 6, length: 24 } as const;

/** A tag plain enough to stand in a description: lowercase letters, digits, single spaces and hyphens. */
const KEYWORD = /^[a-z0-9]+(?:[ -][a-z0-9]+)*$/;

/**
 * The card's tags that are plain keywords, for a skill's description: each tag lowercased and trimmed, kept only when
 * it is letters, digits, spaces and hyphens and at most {@link CREATOR_KEYWORDS_LIMITS}.length characters, without
 * repeats, at most {@link CREATOR_KEYWORDS_LIMITS}.count. A tag with any other character (a `$`, a `#`, a quote, an
 * invisible character) is dropped whole, never repaired, so no sentence or substitution can pass as a keyword.
 * @example creatorKeywords({ name: "", description: "", skills: [{ name: "", description: "", tags: ["weather", "${x}"], examples: [] }] }) // ["weather"]
 */
export function creatorKeywords(words: CreatorWords | undefined): string[] {
  const kept: string[] = [];
  for (const tag of words?.skills.flatMap((skill) => skill.tags) ?? []) {
    const keyword = tag.trim().toLowerCase();
    if (keyword.length > CREATOR_KEYWORDS_LIMITS.length || !KEYWORD.test(keyword) || kept.includes(keyword)) continue;
    kept.push(keyword);
    if (kept.length === CREATOR_KEYWORDS_LIMITS.count) break;
  }
  return kept;
}
