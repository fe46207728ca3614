import { createRequire } from "node:module";
import type { ItemToken, ItsFunction, Model, WinkMethods } from "wink-nlp";
import type { WordNet, WordNetPos } from "./openWordNet.ts";
import {
  CALLERS,
  COUNTING,
  GENERIC,
  GRAMMAR,
  PARTITIVES,
  PHRASES,
  PRESENCE,
  RELATIVES,
  STEPS,
  TO_THE_CALLER,
  TRANSFER,
  UNIT_VERBS,
} from "./phrasing.ts";
import type { NumberRange } from "./readRange.ts";
import { readRange } from "./readRange.ts";

/**
 * A word of a sentence that carries meaning: as written, its lemma and part of speech, the lemmas of its words when
 * it is a WordNet collocation ("whole number", "credit card") and as written, and its role: `content` must be explained by a recipe,
 * `generic` needs no explaining ("compute", "return", "value"), `transfer` sends something somewhere, which no
 * recipe does.
 */
export type SentenceWord = {
  text: string;
  lemma: string;
  pos?: WordNetPos;
  parts: string[];
  /** The words of `parts` as written. */
  written: string[];
  /** The word a count or an extraction picks out ("count the paragraphs"), not the input it works on. */
  unit?: boolean;
  role: "content" | "generic" | "transfer";
};

/** What the reader kept of a sentence: its words, the bounds it puts on a number, and the phrasing it dropped. */
export type Reading = { words: SentenceWord[]; ranges: NumberRange[]; dropped: string[] };

type Token = { text: string; lower: string; lemma: string; pos: string; kind: string; glued: boolean };

const POS: Record<string, WordNetPos> = { NOUN: "n", PROPN: "n", VERB: "v", AUX: "v", ADJ: "a", ADV: "r" };
const NUMBER_WORDS = new Set(
  "zero two three four five six seven eight nine ten eleven twelve twenty fifty hundred thousand million billion".split(
    " ",
  ),
);
const SAMPLE_MARKERS = [["like"], ["such", "as"], ["e.g."], ["eg"], ["for", "example"], ["for", "instance"]];

/** Letter prefixes joined to the number that follows them ("SHA-256" is "sha256", "base 64" is "base64"). */
const JOINED = /\b(sha|base|utf|isbn|crc|rot|ipv|md|ean|iso|mod|keccak|b)[\s-]?(\d+)\b/gi;

let nlp: WinkMethods | undefined;

/**
 * wink-nlp with its English model, loaded on first use (about 100 ms and 90 MB, so a studio that writes with a model
 * server never loads it) and kept.
 */
function language(): WinkMethods {
  if (!nlp) {
    const require = createRequire(import.meta.url);
    const winkNLP = require("wink-nlp") as (model: Model, pipe?: string[]) => WinkMethods;
    nlp = winkNLP(require("wink-eng-lite-web-model") as Model, ["sbd", "pos"]);
  }
  return nlp;
}

/** The sentence with spelling variants of one word made one word, and hyphens and underscores between letters spaces. */
function normalize(sentence: string): string {
  return sentence
    .replace(/\be-mail/gi, "email")
    .replace(JOINED, "$1$2")
    .replace(/\bn[\s-]?th\b/gi, "nth")
    .replace(/(?<=[\p{L}\p{N}])[-_/](?=\p{L})/gu, " ");
}

function tokenize(text: string): Token[] {
  const doc = language().readDoc(text);
  const its = language().its;
  const tokens: Token[] = [];
  doc.tokens().each((t: ItemToken) => {
    const kind = t.out(its.type) as string;
    const lower = (t.out() as string).toLowerCase();
    // wink-nlp's typings give its.lemma a signature its own `out` does not accept.
    const lemma = (t.out(its.lemma as unknown as ItsFunction<string>) as string).toLowerCase();
    const superlative =
      (t.out(its.pos) === "ADJ" || t.out(its.pos) === "ADV") && lemma !== lower && /(?:est|er)$/.test(lower);
    tokens.push({
      text: t.out() as string,
      lower,
      lemma: superlative ? lower : lemma,
      pos: t.out(its.pos) as string,
      kind,
      glued: (t.out(its.precedingSpaces) as string) === "",
    });
  });
  return tokens;
}

const sameAt = (tokens: Token[], at: number, phrase: string[]) =>
  phrase.every((word, j) => tokens[at + j]?.lemma === word || tokens[at + j]?.lower === word);

const isWord = (t: Token | undefined) => t !== undefined && t.kind === "word" && /\p{L}/u.test(t.text);
const isNumber = (t: Token) => t.kind === "number" || t.pos === "NUM" || NUMBER_WORDS.has(t.lower);
const isCode = (t: Token, before: Token | undefined, wordNet: WordNet) =>
  !isWord(t) ||
  (t.glued && before !== undefined && !isWord(before)) ||
  (t.text.length > 1 && t.text === t.text.toUpperCase()) ||
  /\p{Ll}\p{Lu}/u.test(t.text) ||
  !wordNet.has(t.lemma);

/**
 * Reads a creator's sentence as the matcher needs it: wink-nlp tokenizes, tags and lemmatizes it; the bounds on a
 * number are taken out ("between 1 and 3999"); the phrasing is dropped (the request "I need an endpoint that", the
 * caller's part "whatever I send", "give back", "work out", "a piece of", presence verbs after a count, sample
 * values after "like"); counting phrases ("how many", "the number of") read as "count"; WordNet collocations ("whole
 * number", "leap year") read as one word; grammar words and numbers dropped.
 * `asked: false` reads a recipe's own text: only tokens, collocations and grammar, none of a request's phrasing.
 * @example readSentence("Give back the SHA-512 digest of whatever text I send", wordNet).words.map((w) => w.lemma) // ["sha512", "digest", "text"]
 */
export function readSentence(sentence: string, wordNet: WordNet, asked = true): Reading {
  let text = normalize(sentence);
  const ranges = asked ? readRange(text) : [];
  for (const range of ranges) text = text.replace(range.text, " ");
  const tokens = tokenize(text);
  const dropped: string[] = [];
  const keep: (Token | undefined)[] = [...tokens];
  const drop = (from: number, length: number) => {
    dropped.push(
      tokens
        .slice(from, from + length)
        .map((t) => t.text)
        .join(" "),
    );
    for (let j = from; j < from + length; j++) keep[j] = undefined;
  };
  let counted = false;
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i];
    if (!token || !keep[i]) continue;
    if (!asked) continue;
    const phrase = PHRASES.find((p) => sameAt(tokens, i, p));
    if (phrase) {
      drop(i, phrase.length);
      continue;
    }
    const counting = COUNTING.find((p) => sameAt(tokens, i, p));
    let start = i;
    while (start > 0 && tokens[start - 1]?.pos === "ADJ") start--;
    const quantity = counting?.[0] === "number" && /^an?$/.test(tokens[start - 1]?.lower ?? "");
    if (counting && quantity) {
      drop(i, counting.length);
      continue;
    }
    const compound = counting?.[0] === "number" && /^(?:NOUN|PROPN)$/.test(tokens[i - 1]?.pos ?? "");
    if (counting && !compound) {
      keep[i] = {
        ...token,
        text: tokens
          .slice(i, i + counting.length)
          .map((t) => t.text)
          .join(" "),
        lower: "count",
        lemma: "count",
        pos: "VERB",
      };
      for (let j = i + 1; j < i + counting.length; j++) keep[j] = undefined;
      counted = true;
      continue;
    }
    if (/^count|tally|often$/.test(token.lemma)) counted = true;
    const next = tokens[i + 1];
    if (PARTITIVES.has(token.lemma) && next?.lower === "of" && !tokens.slice(i + 2, i + 4).some(isNumber)) {
      drop(i, 2);
      continue;
    }
    const relative = RELATIVES.has(tokens[i - 1]?.lemma ?? "");
    if (
      (counted || relative) &&
      PRESENCE.has(token.lemma) &&
      (token.pos === "VERB" || token.pos === "AUX" || token.lemma === "there")
    ) {
      drop(i, 1);
      continue;
    }
    const adjective = token.lower.endsWith("ed") && isWord(next) && /^(?:NOUN|PROPN|ADJ)$/.test(next?.pos ?? "");
    if (TRANSFER.has(token.lemma) && (token.pos === "VERB" || i === 0) && !adjective) {
      const caller = tokens.slice(Math.max(0, i - 2), i);
      if (caller.some((t) => CALLERS.has(t.lemma)) || (next && TO_THE_CALLER.has(next.lemma))) drop(i, 1);
      else keep[i] = { ...token, pos: "TRANSFER" };
      continue;
    }
    if ((STEPS.has(token.lemma) || STEPS.has(token.lower)) && next && isNumber(next)) {
      keep[i] = { ...token, text: `${token.text} ${next.text}`, lemma: `${token.lemma} ${next.lower}` };
      keep[i + 1] = undefined;
      i++;
      continue;
    }
    const marker = SAMPLE_MARKERS.find((p) => sameAt(tokens, i, p));
    if (marker) {
      let end = i + marker.length;
      while (end < tokens.length && !/^[,;.:)]$/.test(tokens[end]?.text ?? ",")) {
        const t = tokens[end] as Token;
        if (!isCode(t, tokens[end - 1], wordNet) && !isNumber(t) && !GRAMMAR.has(t.lemma)) break;
        end++;
      }
      drop(i, end - i);
      i = end - 1;
    }
  }
  const kept = keep.filter(
    (t): t is Token =>
      t !== undefined && (isWord(t) || t.kind === "number" || t.pos === "NUM" || /^[,;.:!?]$/.test(t.text)),
  );
  const words: SentenceWord[] = [];
  for (let i = 0; i < kept.length; i++) {
    const token = kept[i] as Token;
    const span = [4, 3, 2].find((n) => {
      const window = kept.slice(i, i + n);
      if (window.length < n || window.some((t) => isNumber(t) || !isWord(t) || t.pos === "TRANSFER")) return false;
      if (GRAMMAR.has(window[0]?.lemma ?? "") || GRAMMAR.has(window.at(-1)?.lemma ?? "")) return false;
      return wordNet.has(window.map((t) => t.lemma).join(" ")) || wordNet.has(window.map((t) => t.lower).join(" "));
    });
    if (span) {
      const window = kept.slice(i, i + span);
      const lemmaKey = window.map((t) => t.lemma).join(" ");
      const lemma = wordNet.has(lemmaKey) ? lemmaKey : window.map((t) => t.lower).join(" ");
      const own = window.filter((t) => !GRAMMAR.has(t.lemma));
      words.push({
        text: window.map((t) => t.text).join(" "),
        lemma,
        pos: wordNet.senses(lemma, "v").length ? "v" : "n",
        parts: own.map((t) => t.lemma),
        written: own.map((t) => t.text),
        role: "content",
      });
      i += span - 1;
      continue;
    }
    if (
      !isWord(token) ||
      isNumber(token) ||
      GRAMMAR.has(token.lemma) ||
      GRAMMAR.has(token.lower) ||
      token.text.length < 2
    )
      continue;
    const generic =
      GENERIC.has(token.lemma) ||
      GENERIC.has(token.lower) ||
      (token.lemma === "list" &&
        (token.pos === "VERB" || /^(?:every|all|each|the|them)$/.test(kept[i + 1]?.lower ?? "")));
    const role = token.pos === "TRANSFER" ? "transfer" : generic ? "generic" : "content";
    words.push({
      text: token.text,
      lemma: token.lemma,
      pos: POS[token.pos],
      parts: [token.lemma],
      written: [token.text],
      role,
    });
  }
  if (asked)
    for (const [i, word] of words.entries()) {
      if (word.role === "content" && word.parts.length > 1 && word.parts.every((p) => GENERIC.has(p)))
        word.role = "generic";
      if (!UNIT_VERBS.has(word.lemma) || !(word.pos === "v" || word.role === "generic" || i === 0)) continue;
      const unit = words.slice(i + 1).find((w) => w.role !== "generic");
      if (unit?.role === "content") unit.unit = true;
    }
  return { words, ranges, dropped };
}
