/** Grammar words: dropped before ranking and before coverage. */
const STOPWORDS = new Set(
  "a about against also an and another are as at be been being between both by can could do does for from has have how i if in into is it its me my of on onto or other our out per so than that the their them then there these this those to turn was were what when where whether which while who will with within without would you your".split(
    " ",
  ),
);

/**
 * Words that name neither an operation nor an object of their own: generic verbs ("return", "compute"), generic
 * nouns ("value", "data", "result") and filler ("given", "like"). They rank recipes but need no explaining.
 */
const GENERIC_WORDS =
  "return give get compute determine produce output provide take accept tell show make create build find want need let use using work perform handle endpoint api service function tool utility caller user request response result input value data content thing file given provided specified any all each every some one two three single simple quick small new like such example way back algorithm";

/** Spelling variants and near-synonyms, each read as the word (or words) it maps to. */
const SYNONYMS: Record<string, string> = {
  string: "text",
  uppercase: "upper case",
  lowercase: "lower case",
  titlecase: "title case",
  capitalise: "capitalize",
  colour: "color",
  verify: "validate",
  validation: "validate",
  validator: "validate",
  valid: "validate",
  invalid: "validate",
  calculate: "compute",
  array: "list",
  char: "character",
  backwards: "reverse",
};

/** Letter prefixes joined to the number that follows them ("SHA-256" is "sha256", "base 64" is "base64"). */
const JOINED = /\b(sha|base|utf|isbn|crc|rot|ipv|md|ean|iso)[\s-]?(\d+)\b/gi;

/** One word of a text: as written, its stem, and whether it must be explained by a recipe. */
export type Token = { word: string; stem: string; names: boolean };

function stemOf(word: string): string {
  let w = word;
  if (w.length > 4 && /ie[sd]$/.test(w)) w = `${w.slice(0, -3)}y`;
  else if (w.length > 4 && /(?:ss|x|ch|sh|z)es$/.test(w)) w = w.slice(0, -2);
  else if (w.length > 3 && w.endsWith("s") && !/(?:ss|us|is)$/.test(w)) w = w.slice(0, -1);
  if (w.length > 6 && w.endsWith("ly")) w = w.slice(0, -2);
  const verb = w.length > 5 && w.endsWith("ing") ? 3 : w.length > 4 && w.endsWith("ed") ? 2 : 0;
  w = w.slice(0, w.length - verb);
  if (verb && /([b-df-hj-km-np-rtv-z])\1$/.test(w)) w = w.slice(0, -1);
  if (w.length > 4 && w.endsWith("e")) w = w.slice(0, -1);
  return w;
}

const GENERIC = new Set(GENERIC_WORDS.split(" ").map(stemOf));
const CANONICAL = new Map(
  Object.entries(SYNONYMS).map(([word, meaning]) => [stemOf(word), meaning.split(" ").map(stemOf)] as const),
);

/**
 * The words of a text that carry meaning, as written and with their stem: split on anything but letters and digits
 * (a few prefixes joined to their number, "SHA-256" as "sha256"; "the number of" read as "the count of"), grammar
 * words and single letters dropped; stems lowercased, cut by a light suffix stemmer and read through a small synonym
 * map. `names` is false for generic words and bare numbers, which rank recipes but need no explaining.
 * @example tokens("Reverse the words of a string").map((t) => t.stem) // ["revers", "word", "text"]
 */
export function tokens(text: string): Token[] {
  const joined = text
    .replace(/\be-mail/gi, "email")
    .replace(/\bthe number of\b/gi, "the count of")
    .replace(JOINED, "$1$2");
  return (joined.match(/[\p{L}\p{N}]+/gu) ?? [])
    .filter((word) => word.length > 1 && !STOPWORDS.has(word.toLowerCase()))
    .flatMap((word) => {
      const stem = stemOf(word.toLowerCase());
      return (CANONICAL.get(stem) ?? [stem]).map((s) => ({
        word,
        stem: s,
        names: !GENERIC.has(s) && !/^\d+$/.test(s),
      }));
    });
}
