/** The longest term kept; a longer word is cut to this many characters, in cards and queries alike. */
export const MAX_TERM_LENGTH = 40;

/** Words too common to say what a resource does; neither indexed nor searched. */
const STOP_WORDS = new Set(
  "a an and are as at be by can does for from how i if in into is it its of on or that the their then these this to was what when which will with".split(
    " ",
  ),
);

/** Endings whose `s` is not a plural: `status`, `class`, `analysis`. */
const NOT_PLURAL = /(?:us|ss|is)$/;

/**
 * Folds a word lightly, so that its singular and plural meet (an S-stemmer): `entries` → `entry`; a plural `s`, then
 * a final `e`, are dropped, so `palindromes` and `palindrome` both become `palindrom`, `hashes` and `hash` both
 * `hash`. Words of three letters or fewer stay as they are.
 */
function stem(word: string): string {
  if (word.length <= 3) return word;
  if (word.endsWith("ies") && !/[ae]ies$/.test(word)) return `${word.slice(0, -3)}y`;
  let stem = word.endsWith("s") && !NOT_PLURAL.test(word) ? word.slice(0, -1) : word;
  if (stem.length > 3 && stem.endsWith("e")) stem = stem.slice(0, -1);
  return stem;
}

/**
 * The search terms of a text, in order, repeats kept: Unicode-folded (NFKD, accents dropped, lower case), split on
 * anything that is not a letter or a digit, stop words dropped, each word stemmed (plural `s`, final `e`), each cut to
 * {@link MAX_TERM_LENGTH}. Cards and queries go through this same function, so they meet on the same terms.
 * @example searchTerms("Checks palindromes in a TEXT") // ["check", "palindrom", "text"]
 */
export function searchTerms(text: string): string[] {
  const terms: string[] = [];
  const words = text
    .normalize("NFKD")
    .replace(/\p{M}+/gu, "")
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u);
  for (const word of words) {
    if (word === "" || STOP_WORDS.has(word)) continue;
    terms.push(stem(word).slice(0, MAX_TERM_LENGTH));
  }
  return terms;
}
