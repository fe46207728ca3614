/**
 * How creators phrase a request, as opposed to what they ask: the word lists the sentence reader uses. Each list is
 * of lemmas (lowercase, as wink-nlp lemmatizes them); a multiword entry is matched on consecutive lemmas.
 */

const words = (text: string) => new Set(text.trim().split(/\s+/));

/** Grammar: articles, prepositions, pronouns, auxiliaries, conjunctions. Dropped before anything else. */
export const GRAMMAR = words(`
a about above across against all along also although among an and another any anyone anything are as at be
because been being below beneath beside besides both but by can could did do does doing done down
during each either else ever every everything for from had has have having he her here hers him his how however
i if in inside into is it its itself just let me might mine more most much must my myself neither no nor not now of
off on once one only onto or other others otherwise our ours out over own per please pls plz rather shall she
should so some someone something such than that the their theirs them themselves then there these they thing things
this those though through thus to too toward towards under up upon us very via was we were what whatever when
whenever where wherever whether which while who whoever whom whose why will with within without would yet you your
yours yourself using 's ’s
`);

/**
 * Words that need no explaining: how a request, its input and its answer are spoken of, and verbs that say "do the
 * operation" without naming one. They still rank recipes.
 */
export const GENERIC = words(`
accept actually algorithm allow answer between content data info information stuff api app application approach arbitrary back basic basically bot build caller certain client code
belong change come compute calculate contain convert correct correctly create creator determine develop display
do easily easy enable endpoint
enter exactly express expose feature feed find function generate get give given go handle handler help implement incoming input
fixed gimme hello hey hidden hi human keep kindly know let little long make measure mention method microservice need nice nicely normal ordinary output plain paste perform piece print process produce
embedded procedure program properly read provide provided put quick readable regular representation quickly really receive reckon render represent require respond response
result return route run say script service show simple simply small specific specified spit submit supply supplied switch take technique tell thanks transform translate turn
tiny tool use used user utility value want way well wish work write
`);

/**
 * Multiword phrasing, dropped as a whole wherever it appears (lemmas): requests, the caller's part, and idioms whose
 * words would otherwise each need explaining.
 */
export const PHRASES: string[][] = [
  "i need",
  "i want",
  "i would like",
  "would like",
  "we need",
  "look for",
  "give back",
  "hand back",
  "send back",
  "spit out",
  "work out",
  "figure out",
  "find out",
  "come in",
  "come back",
  "according to",
  "base on",
  "by mean of",
  "in term of",
  "for use in",
  "so that",
  "in order to",
  "let i know",
  "let us know",
  "tell i",
  "show i",
  "give i",
  "each one",
  "every one",
  "for i",
  "for example",
  "such as",
  "e g",
].map((phrase) => phrase.split(" "));

/**
 * Nouns for a part of something ("a piece of text"): dropped when "of" follows and no number does ("chunks of 3"
 * stay).
 */
export const PARTITIVES = words("piece bit block bunch lot couple chunk snippet sample portion fragment");

/**
 * Phrases that say "count" ("how many vowels", "the number of days"); read as the word "count".
 */
export const COUNTING: string[][] = ["how many", "how much", "number of", "amount of", "count of", "total of"].map(
  (phrase) => phrase.split(" "),
);

/**
 * Verbs of being there ("how many vowels appear in", "how many days lie between"): phrasing after a count, and
 * words to explain anywhere else ("whether an address exists").
 */
export const PRESENCE = words("appear occur lie exist be have contain show remain sit there");

/** Relative pronouns after which a presence verb is phrasing too ("the numbers that appear in a string"). */
export const RELATIVES = words("that which who");

/**
 * Verbs whose object is the unit they count or pick out ("count the paragraphs", "extract the dates"): that word must
 * be named by the recipe itself, not reached as a kind of its input (a paragraph is a text, but a recipe that counts
 * the words of a text does not count paragraphs).
 */
export const UNIT_VERBS = words("count extract find pull grab list remove strip delete drop collect tally");

/** Words after which a number is a step the answer moves by ("the nearest 5"), which must be explained. */
export const STEPS = words("nearest closest multiple");

/**
 * Verbs that move something to someone or somewhere ("send the data to my server", "email the result"): no recipe
 * does that, so they are never explained, except as the caller's part ("the text I send", "send it a formula",
 * "send back"), which is phrasing.
 */
export const TRANSFER = words(`
send email e-mail mail post forward upload push deliver notify publish share store save persist log tweet fax
broadcast sync dispatch transmit relay
`);

/** Who the caller is when a transfer verb follows ("whatever I send", "the string you post"): phrasing. */
export const CALLERS = words("i you we they user caller client someone people he she");

/** Words after a transfer verb that make it the caller's part ("send it a formula", "send me"). */
export const TO_THE_CALLER = words("it i me us them back in");
