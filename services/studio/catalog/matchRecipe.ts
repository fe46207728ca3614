import { correctSpelling } from "./meaning/correctSpelling.ts";
import { GENERIC } from "./meaning/phrasing.ts";
import type { NumberRange } from "./meaning/readRange.ts";
import type { Reading, SentenceWord } from "./meaning/readSentence.ts";
import { readSentence } from "./meaning/readSentence.ts";
import { relatedWords } from "./meaning/relatedWords.ts";
import { sharedWordNet } from "./meaning/sharedWordNet.ts";
import { SYNONYMS } from "./meaning/synonyms.ts";
import type { Recipe } from "./recipe.ts";

/**
 * One recipe's BM25 score for a sentence, the recipe words the sentence's words matched, the sentence's words (and
 * number bounds) it does not explain, as the sentence wrote them, how many of its content words it explains, and
 * whether it explains what the sentence asks to be done (a word that is more than the kind of its input, such as
 * "text" or "number").
 */
export type RecipeScore = {
  recipe: Recipe;
  score: number;
  matched: string[];
  unexplained: string[];
  explained: number;
  explainsOperation: boolean;
};

/** Added to the score of a recipe whose `prefer` pattern matches the sentence (ranking only: never coverage). */
export const BOOST = 5;

/** Score below which no recipe is taken, even one that explains every word (BM25 over the catalog). */
export const MATCH_THRESHOLD = 3;

/** At most this many unexplained words leave a recipe close enough to ask the creator about. */
export const ASK_LIMIT = 2;

const K1 = 1.2;
const B = 0.75;

/** Words that say what kind of thing the input is, not what to do with it: they alone never make a match. */
const OBJECT_KINDS = new Set(
  "text string number integer list array item character letter line value document sentence date".split(" "),
);

/**
 * The WordNet senses ("lemma#sense number") a creator's noun may be a kind of to be read as the kind of input a
 * recipe takes: a paragraph, an essay or a poem is a piece of writing, so a text; an integer is a number.
 */
const KIND_SENSES: Record<string, string[]> = {
  text: ["writing#2", "text#1", "document#1", "prose#1"],
  number: ["number#1", "number#2", "integer#1"],
  list: ["list#1"],
};

let kindsBySynset: Map<string, string> | undefined;

/** The object kind each of `KIND_SENSES`' synsets stands for, by synset id (resolved once). */
function kindOfSynset(id: string): string | undefined {
  kindsBySynset ??= new Map(
    Object.entries(KIND_SENSES).flatMap(([kind, senses]) =>
      senses.flatMap((sense) => {
        const [lemma = "", n = "1"] = sense.split("#");
        const synset = sharedWordNet().senses(lemma, "n")[Number(n) - 1];
        return synset ? [[synset, kind] as const] : [];
      }),
    ),
  );
  return kindsBySynset.get(id);
}

/**
 * Recipe words too broad to be reached through WordNet: every conversion is a "change", every measure a "unit", so
 * "reverse" (a change) or "square foot" (a unit) would be explained by any recipe that says them.
 */
const BROAD = new Set(
  "change alter modify make do be have get give take put set move act form thing object entity abstraction part unit group kind type relation attribute property state amount quantity measure way".split(
    " ",
  ),
);

const TYPE_WORDS: Record<string, string> = { string: "text", number: "number", integer: "number", array: "list" };

/**
 * The words of a request schema: its property names ("birthDate" is "birth date") and the kinds of their values
 * (a list's items are not: a list of strings is not a text), except a string with a pattern, which is a format ("a
 * number in base 16"), not a text.
 */
function schemaWords(schema: Record<string, unknown>): string[] {
  const properties = (schema.properties ?? {}) as Record<string, Record<string, unknown>>;
  return Object.entries(properties).flatMap(([name, property]) => {
    const types = [property.type].flat().filter((t): t is string => typeof t === "string");
    const free = types.filter((t) => t !== "string" || property.pattern === undefined);
    return [name.replace(/([a-z])([A-Z])/g, "$1 $2"), ...free.flatMap((t) => TYPE_WORDS[t] ?? [])];
  });
}

/** A recipe's words: as a bag (for BM25) and as a set, and the set WordNet may reach (without the broad words). */
type Vocabulary = { bag: string[]; known: Set<string>; reachable: Set<string> };

const vocabularies = new WeakMap<Recipe, { all: Vocabulary; names: Vocabulary }>();

/** The words of a recipe's texts, each with its lemma, as written and its collocation's words. */
const wordsOf = (text: string) =>
  readSentence(text, sharedWordNet(), false).words.flatMap((w) => [
    ...new Set([w.lemma, w.text.toLowerCase(), ...w.parts]),
  ]);

function vocabularyOf(bag: string[]): Vocabulary {
  const known = new Set(bag);
  return { bag, known, reachable: new Set([...known].filter((w) => !BROAD.has(w) && !GENERIC.has(w))) };
}

/**
 * The words a recipe answers to (`all`): the lemmas of its title, description, synonyms (which hold its parameters'
 * words) and tags, and its request schema's words (so a recipe that takes a free string takes a "text"); and the words
 * that name it (`names`): its title, synonyms and tags, without the description's incidental words ("lowercase" in
 * the slug recipe's "a URL slug of lowercase words").
 */
function vocabulary(recipe: Recipe): { all: Vocabulary; names: Vocabulary } {
  const known = vocabularies.get(recipe);
  if (known) return known;
  const { requestSchema } = recipe.build(recipe.parameters(""));
  const names = wordsOf([recipe.title, ...recipe.synonyms, ...recipe.tags].join(", "));
  const both = {
    all: vocabularyOf([...names, ...wordsOf([recipe.description, ...schemaWords(requestSchema)].join(", "))]),
    names: vocabularyOf(names),
  };
  vocabularies.set(recipe, both);
  return both;
}

/** Forms of a word to look up: itself, as written, an adverb's adjective ("alphabetically"), and mapped synonyms. */
function formsOf(word: SentenceWord): string[] {
  const forms = [word.lemma, word.text.toLowerCase()];
  if (/..ly$/.test(word.lemma)) forms.push(word.lemma.replace(/ly$/, ""), word.lemma.replace(/ally$/, "al"));
  return forms.flatMap((form) => [
    form,
    ...(SYNONYMS[form] ?? []).filter((mapped) => !(word.unit && OBJECT_KINDS.has(mapped))),
  ]);
}

/** Whether a recipe has a word, or every word of a mapped phrase ("upper case"). */
const knows = (vocabulary: Vocabulary, form: string) =>
  vocabulary.known.has(form) || (form.includes(" ") && form.split(" ").every((w) => vocabulary.known.has(w)));

/** Whether a word names the kind of input rather than what to do with it ("text", "paragraph", "integer"). */
function namesInput(word: SentenceWord): boolean {
  return [word.lemma, ...(SYNONYMS[word.lemma] ?? [])].some((form) => OBJECT_KINDS.has(form));
}

/**
 * The recipe words that explain a sentence word: the word itself or a mapped synonym (only that for a generic word,
 * which ranks recipes but needs no explaining); for a collocation, each of its words so; else a synonym in WordNet's
 * most frequent sense of it (for a collocation, one without its head word: a "phone number" is not explained by
 * "number"; for a verb, not a kind of input: "count" is not "number"), or the kind of input `SYNONYMS` maps that
 * synonym to ("whole number" is "integer", a number), never another mapped word ("differentiate" is "tell" but
 * not "check"); else, for one word, a kind of input it is (`KIND_SENSES`: an essay is a piece of writing, so a
 * text) that the recipe takes.
 * The unit a count or an extraction picks out is never read as a kind of input ("count the paragraphs").
 */
function explain(word: SentenceWord, vocabulary: Vocabulary): string[] | undefined {
  const direct = formsOf(word).find((form) => knows(vocabulary, form));
  if (direct) return [direct, ...direct.split(" "), ...word.parts].filter((t) => vocabulary.known.has(t));
  if (word.role === "generic") return undefined;
  if (word.parts.length > 1) {
    const parts = word.parts.map((part) =>
      formsOf({ ...word, text: part, lemma: part, parts: [part] }).find((form) => knows(vocabulary, form)),
    );
    if (parts.every((p) => p !== undefined)) return parts as string[];
  }
  const meaning = relatedWords(sharedWordNet(), word.lemma, word.pos);
  const head = word.parts.at(-1) ?? "";
  const input = (form: string) => OBJECT_KINDS.has(form) && !(word.pos === "v" || word.unit);
  for (const synonym of meaning.synonyms) {
    if (word.parts.length > 1 && synonym.split(" ").includes(head)) continue;
    if (vocabulary.reachable.has(synonym) && (input(synonym) || !OBJECT_KINDS.has(synonym))) return [synonym];
    const kind = (SYNONYMS[synonym] ?? []).find((form) => input(form) && vocabulary.known.has(form));
    if (kind) return [kind];
  }
  if (word.parts.length > 1 || word.unit) return undefined;
  for (const id of meaning.kinds) {
    const kind = kindOfSynset(id);
    if (kind && vocabulary.known.has(kind)) return [kind];
  }
  return undefined;
}

/** What to name of an unexplained word: the words of a collocation the recipe does not have ("phone"), or the word. */
function unexplainedParts(word: SentenceWord, vocabulary: Vocabulary): string[] {
  if (word.parts.length < 2) return [word.text];
  const missing = word.parts.flatMap((part, i) =>
    formsOf({ ...word, text: part, lemma: part, parts: [part] }).some((form) => knows(vocabulary, form))
      ? []
      : [word.written[i] ?? part],
  );
  return missing.length > 0 ? missing : [word.text];
}

/** Whether a recipe's numeric input can be bound to the range: inside the limits it declares. */
function takesRange(recipe: Recipe, range: NumberRange): boolean {
  const limits = recipe.limits;
  if (!limits) return false;
  const minimum = range.minimum ?? limits.minimum;
  const maximum = range.maximum ?? limits.maximum;
  return minimum >= limits.minimum && maximum <= limits.maximum && minimum <= maximum;
}

const catalogs = new WeakMap<readonly Recipe[], Set<string>>();

/** Every word of a catalog's recipes, the words a typo is corrected to. */
function catalogWords(recipes: readonly Recipe[]): Set<string> {
  let words = catalogs.get(recipes);
  if (!words) {
    words = new Set(recipes.flatMap((r) => [...vocabulary(r).all.known]));
    catalogs.set(recipes, words);
  }
  return words;
}

/** A reading with its typos corrected, and the sentence with the corrections (what parameters are read from). */
type CorrectedReading = Reading & { corrected: string };

const readings = new Map<string, CorrectedReading>();

/**
 * The sentence as the matcher reads it, with each content word WordNet does not know and no recipe says read as the
 * one recipe word it is a typo of ("palindrom"). The last 200 readings are kept.
 */
function read(sentence: string, recipes: readonly Recipe[]): CorrectedReading {
  const known = readings.get(sentence);
  if (known) return known;
  const reading = readSentence(sentence, sharedWordNet());
  const words = catalogWords(recipes);
  let corrected = sentence;
  for (const word of reading.words) {
    if (word.role !== "content" || words.has(word.lemma) || sharedWordNet().has(word.lemma)) continue;
    const correction = correctSpelling(word.lemma, words);
    if (!correction) continue;
    corrected = corrected.replace(new RegExp(`\\b${word.text.replace(/[^\p{L}\p{N}]/gu, "")}\\b`, "u"), correction);
    Object.assign(word, { lemma: correction, parts: [correction], written: [word.text], pos: undefined });
  }
  if (readings.size >= 200) readings.delete(readings.keys().next().value as string);
  const result = { ...reading, corrected };
  readings.set(sentence, result);
  return result;
}

/**
 * Ranks the recipes for a sentence with BM25 over each recipe's vocabulary (IDF over the catalog), best first, and
 * lists for each the sentence's content words it does not explain (directly, through `SYNONYMS`, or through WordNet
 * synonyms and hypernyms), the number bounds it cannot take, and any word that sends something somewhere.
 * @example rankRecipes("Return the SHA-512 hex digest of a text", RECIPES)[0].recipe.id // "digest"
 */
export function rankRecipes(sentence: string, recipes: readonly Recipe[]): RecipeScore[] {
  const reading = read(sentence, recipes);
  const documents = recipes.map((r) => vocabulary(r).all.bag);
  const averageLength = documents.reduce((sum, d) => sum + d.length, 0) / documents.length;
  const frequency = new Map<string, number>();
  for (const document of documents)
    for (const term of new Set(document)) frequency.set(term, (frequency.get(term) ?? 0) + 1);
  return recipes
    .map((recipe, i) => {
      const words = vocabulary(recipe);
      const document = documents[i] ?? [];
      const matched: string[] = [];
      const unexplained: string[] = [];
      let explainsOperation = false;
      let explained = 0;
      for (const word of reading.words) {
        const terms = word.role === "transfer" ? undefined : explain(word, words.all);
        for (const t of terms ?? []) if (!matched.includes(t)) matched.push(t);
        const term = terms === undefined ? undefined : (terms[0] ?? word.lemma);
        if (word.role === "generic") continue;
        if (!term) unexplained.push(...unexplainedParts(word, words.all));
        else explained++;
        if (term && !namesInput(word) && !OBJECT_KINDS.has(term) && explain(word, words.names))
          explainsOperation = true;
      }
      for (const range of reading.ranges) if (!takesRange(recipe, range)) unexplained.push(range.text);
      let score = 0;
      for (const term of matched) {
        const tf = document.filter((t) => t === term).length;
        if (tf === 0) continue;
        const n = frequency.get(term) ?? 0;
        const idf = Math.log(1 + (recipes.length - n + 0.5) / (n + 0.5));
        score += (idf * tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * document.length) / averageLength));
      }
      if (score > 0 && recipe.prefer?.test(sentence)) score += BOOST;
      const distinct = unexplained.filter(
        (w, j) => unexplained.findIndex((v) => v.toLowerCase() === w.toLowerCase()) === j,
      );
      return {
        recipe,
        score: Math.round(score * 100) / 100,
        matched,
        unexplained: distinct,
        explained,
        explainsOperation,
      };
    })
    .sort((a, b) => b.score - a.score || a.recipe.id.localeCompare(b.recipe.id));
}

/**
 * The recipe a sentence asks for; or the three closest recipes, and the one to ask the creator about when it
 * explains what the sentence asks to be done and most of its words, leaving at most `ASK_LIMIT` unexplained (never
 * a word that sends something somewhere).
 */
export type RecipeMatch = { sentence: string } & (
  | { match: RecipeScore; closest?: undefined; ask?: undefined }
  | { match?: undefined; closest: RecipeScore[]; ask?: RecipeScore }
);

/**
 * The best-ranked recipe that explains what the sentence asks to be done and every content word and number bound of
 * it, with a BM25 score of at least `threshold`; otherwise the three closest recipes (those that explain what is to
 * be done first, then those that leave the fewest words unexplained, then by score), each with what it does not
 * explain. A `prefer` boost reorders recipes that explain the sentence, never rescues one that does not. `sentence`
 * is the sentence with its typos corrected, which the recipe's parameters are read from.
 * @example matchRecipe("Check whether a string is a palindrome", RECIPES).match?.recipe.id // "palindrome-check"
 */
export function matchRecipe(sentence: string, recipes: readonly Recipe[], threshold = MATCH_THRESHOLD): RecipeMatch {
  const ranked = rankRecipes(sentence, recipes);
  const enough = (r: RecipeScore) => r.explainsOperation && r.score >= threshold && !r.recipe.refuses?.test(sentence);
  const match = ranked.find((r) => enough(r) && r.unexplained.length === 0);
  const reading = read(sentence, recipes);
  if (match) return { match, sentence: reading.corrected };
  const transfers = new Set(reading.words.filter((w) => w.role === "transfer").map((w) => w.text));
  const askable = ranked.filter(
    (r) =>
      enough(r) &&
      r.unexplained.length <= ASK_LIMIT &&
      r.explained > r.unexplained.length &&
      !r.unexplained.some((w) => transfers.has(w)),
  );
  const fewest = Math.min(...askable.map((r) => r.unexplained.length));
  const closest = [...ranked].sort(
    (a, b) =>
      Number(b.explainsOperation) - Number(a.explainsOperation) ||
      a.unexplained.length - b.unexplained.length ||
      b.score - a.score,
  );
  return {
    closest: closest.slice(0, 3),
    ask: askable.find((r) => r.unexplained.length === fewest),
    sentence: reading.corrected,
  };
}
