import type { WordNet, WordNetPos } from "./openWordNet.ts";

/** How many of a noun's senses, most frequent first, are followed up the "is a kind of" chain. */
export const KIND_SENSES = 2;

/** How far up the "is a kind of" chain a noun is read: a paragraph is a piece of writing, an integer a number. */
export const KIND_DEPTH = 3;

const POSES: WordNetPos[] = ["n", "v", "a", "r"];

/**
 * What WordNet says a lemma means: `synonyms`, the words of its most frequent sense (the others are too rare to
 * read a creator's word as), and `kinds`, the synset ids of what its first `KIND_SENSES` noun senses are a kind of, up
 * to `KIND_DEPTH` levels. In the part of speech the sentence used it in, or all of them when WordNet has it in no other.
 */
export type Meaning = { synonyms: Set<string>; kinds: Set<string> };

const cache = new WeakMap<WordNet, Map<string, Meaning>>();

/**
 * The synonyms (lowercase, multiword lemmas with spaces) and kinds WordNet gives a lemma, kept once read.
 * @example relatedWords(wordNet, "essay", "n").kinds.has(wordNet.senses("writing", "n")[1]) // true
 */
export function relatedWords(wordNet: WordNet, lemma: string, pos?: WordNetPos): Meaning {
  let known = cache.get(wordNet);
  if (!known) {
    known = new Map();
    cache.set(wordNet, known);
  }
  const key = `${pos ?? "-"}:${lemma}`;
  const found = known.get(key);
  if (found) return found;
  const meaning: Meaning = { synonyms: new Set(), kinds: new Set() };
  const poses = pos && wordNet.senses(lemma, pos).length > 0 ? [pos] : POSES;
  for (const p of poses) {
    const senses = wordNet.senses(lemma, p);
    for (const word of senses[0] ? wordNet.synset(senses[0]).words : []) meaning.synonyms.add(word);
    if (p !== "n") continue;
    let level = senses.slice(0, KIND_SENSES).flatMap((id) => wordNet.synset(id).hypernyms);
    for (let depth = 1; depth <= KIND_DEPTH && level.length > 0; depth++) {
      const next: string[] = [];
      for (const id of level) {
        meaning.kinds.add(id);
        next.push(...wordNet.synset(id).hypernyms);
      }
      level = next;
    }
  }
  meaning.synonyms.delete(lemma);
  known.set(key, meaning);
  return meaning;
}
