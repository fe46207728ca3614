import { searchTerms } from "../catalog/searchTerms.ts";

/** What moderation looks at: the listing's words. */
export type ModerationSubject = {
  slug: string;
  category: string;
  name: string;
  description: string;
  skills: readonly { id: string; name: string; description: string; tags: readonly string[] }[];
};

/** A moderation rule: a refusal reason, or undefined to let the listing pass. Rules are pluggable. */
export type ModerationRule = (subject: ModerationSubject) => string | undefined;

const CATEGORY = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is what this pattern is for
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;

function texts(subject: ModerationSubject): { where: string; text: string }[] {
  return [
    { where: "slug", text: subject.slug },
    { where: "name", text: subject.name },
    { where: "description", text: subject.description },
    { where: "category", text: subject.category },
    ...subject.skills.flatMap((skill, i) => [
      { where: `skills[${i}].id`, text: skill.id },
      { where: `skills[${i}].name`, text: skill.name },
      { where: `skills[${i}].description`, text: skill.description },
      ...skill.tags.map((tag, j) => ({ where: `skills[${i}].tags[${j}]`, text: tag })),
    ]),
  ];
}

/** Refuses a category that is not lowercase dash-separated words (so that exact-match filters work). */
export const categoryFormatRule: ModerationRule = (s) =>
  CATEGORY.test(s.category)
    ? undefined
    : `category "${s.category}" must be lowercase words of a-z and 0-9 separated by dashes`;

/** Refuses overlong listing text: name 100, description 2,000, 32 skills, 16 tags each. */
export const lengthRule: ModerationRule = (s) => {
  if (s.name.length > 100) return "name is longer than 100 characters";
  if (s.description.length > 2_000) return "description is longer than 2,000 characters";
  if (s.skills.length > 32) return "more than 32 skills";
  for (const [i, skill] of s.skills.entries()) {
    if (skill.name.length > 100) return `skills[${i}].name is longer than 100 characters`;
    if (skill.description.length > 2_000) return `skills[${i}].description is longer than 2,000 characters`;
    if (skill.tags.length > 16) return `skills[${i}] has more than 16 tags`;
  }
  return undefined;
};

/** Refuses control characters anywhere in the listing text. */
export const controlCharacterRule: ModerationRule = (s) => {
  const found = texts(s).find(({ text }) => CONTROL.test(text));
  return found ? `${found.where} contains control characters` : undefined;
};

/** Whether `words` holds `run` as consecutive words. */
function holdsRun(words: readonly string[], run: readonly string[]): boolean {
  for (let i = 0; i + run.length <= words.length; i++) if (run.every((word, j) => words[i + j] === word)) return true;
  return false;
}

/**
 * Refuses a listing whose text (the slug and skill ids included) holds a blocked term as whole words, both read as the
 * marketplace's search reads them (searchTerms: Unicode-folded, so accents and full-width letters fold, split on
 * anything but letters and digits, so any spacing or dash counts, and plurals stemmed): what moderation lets through
 * is never what a search for the term finds.
 * @example blockedTermsRule(["malware"])({ name: "Malware builders", … }) // 'name contains the blocked term "malware"'
 */
export function blockedTermsRule(terms: readonly string[]): ModerationRule {
  const blocked = terms
    .map((term) => ({ term: term.trim().toLowerCase(), words: searchTerms(term) }))
    .filter(({ words }) => words.length > 0);
  return (s) => {
    for (const { where, text } of texts(s)) {
      const words = searchTerms(text);
      const hit = blocked.find((b) => holdsRun(words, b.words));
      if (hit) return `${where} contains the blocked term "${hit.term}"`;
    }
    return undefined;
  };
}

/**
 * The default rules: category format, lengths, control characters, and the blocklist.
 * @example defaultModerationRules("malware,phishing")
 */
export function defaultModerationRules(blocklist: string): ModerationRule[] {
  return [categoryFormatRule, lengthRule, controlCharacterRule, blockedTermsRule(blocklist.split(","))];
}

/**
 * Runs every rule; the first refusal wins.
 * @example moderate(subject, rules) // { ok: false, reason: "…" }
 */
export function moderate(
  subject: ModerationSubject,
  rules: readonly ModerationRule[],
): { ok: true } | { ok: false; reason: string } {
  for (const rule of rules) {
    const reason = rule(subject);
    if (reason !== undefined) return { ok: false, reason };
  }
  return { ok: true };
}
