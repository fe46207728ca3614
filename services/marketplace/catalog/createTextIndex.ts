import { searchTerms } from "./searchTerms.ts";

/** A piece of a document's text and how much a term found in it counts (a name more than a description). */
export type WeightedText = { text: string; weight: number };

type Postings = { docs: Int32Array; weights: Float32Array; size: number };

/** BM25's saturation and length-normalisation constants (the customary values). */
const K1 = 1.2;
const B = 0.75;

/**
 * An in-memory inverted index ranking documents by BM25F: each term's frequency is weighted by the field it occurs
 * in, and the document's length is the weighted count of its terms. Postings are typed arrays of document numbers;
 * replacing or removing a document leaves its old postings dead until they outnumber the live ones, when they are
 * compacted. `search` ranks by the query's distinct terms, any of which may match.
 * @example const index = createTextIndex<string>(); index.put("r1", [{ text: "Palindrome check", weight: 3 }]); index.search(["palindrom"], (key, score) => …)
 */
export function createTextIndex<K>() {
  const terms = new Map<string, Postings>();
  /** By document number: its key (undefined once removed) and its weighted length (-1 once removed). */
  let keys: (K | undefined)[] = [];
  let lengths = new Float64Array(1024);
  const numberOf = new Map<K, number>();
  let live = 0;
  let dead = 0;
  let totalLength = 0;
  let scores = new Float64Array(1024);
  let touched = new Int32Array(1024);

  const append = (term: string, doc: number, weight: number) => {
    let postings = terms.get(term);
    if (!postings) {
      postings = { docs: new Int32Array(4), weights: new Float32Array(4), size: 0 };
      terms.set(term, postings);
    }
    if (postings.size === postings.docs.length) {
      const docs = new Int32Array(postings.size * 2);
      docs.set(postings.docs);
      const weights = new Float32Array(postings.size * 2);
      weights.set(postings.weights);
      postings.docs = docs;
      postings.weights = weights;
    }
    postings.docs[postings.size] = doc;
    postings.weights[postings.size] = weight;
    postings.size += 1;
  };

  const compact = () => {
    const renumbered = new Int32Array(keys.length).fill(-1);
    const kept: K[] = [];
    for (let n = 0; n < keys.length; n++) {
      if (lengths[n]! < 0) continue;
      const key = keys[n] as K;
      renumbered[n] = kept.length;
      lengths[kept.length] = lengths[n]!;
      numberOf.set(key, kept.length);
      kept.push(key);
    }
    for (const [term, postings] of terms) {
      let size = 0;
      for (let i = 0; i < postings.size; i++) {
        const doc = renumbered[postings.docs[i]!]!;
        if (doc < 0) continue;
        postings.docs[size] = doc;
        postings.weights[size] = postings.weights[i]!;
        size += 1;
      }
      if (size === 0) terms.delete(term);
      else postings.size = size;
    }
    keys = kept;
    dead = 0;
  };

  const remove = (key: K) => {
    const n = numberOf.get(key);
    if (n === undefined) return;
    totalLength -= lengths[n]!;
    lengths[n] = -1;
    keys[n] = undefined;
    numberOf.delete(key);
    live -= 1;
    dead += 1;
    if (dead > 1024 && dead > live) compact();
  };

  return {
    /** Indexes (or re-indexes) the document `key` from its weighted texts. */
    put(key: K, texts: readonly WeightedText[]): void {
      remove(key);
      const frequencies = new Map<string, number>();
      let length = 0;
      for (const { text, weight } of texts) {
        for (const term of searchTerms(text)) {
          frequencies.set(term, (frequencies.get(term) ?? 0) + weight);
          length += weight;
        }
      }
      const n = keys.length;
      keys.push(key);
      if (n === lengths.length) {
        const grown = new Float64Array(n * 2);
        grown.set(lengths);
        lengths = grown;
      }
      lengths[n] = length;
      numberOf.set(key, n);
      live += 1;
      totalLength += length;
      for (const [term, weight] of frequencies) append(term, n, weight);
    },
    /** Forgets the document `key`. */
    remove,
    /** How many documents are indexed. */
    get size(): number {
      return live;
    },
    /**
     * Calls `hit` once for every document holding at least one of `queryTerms` (already passed through
     * `searchTerms`), with its BM25F score; documents come in no particular order.
     */
    search(queryTerms: readonly string[], hit: (key: K, score: number) => void): void {
      if (live === 0) return;
      if (scores.length < keys.length) {
        scores = new Float64Array(keys.length * 2);
        touched = new Int32Array(keys.length * 2);
      }
      const averageLength = totalLength / live || 1;
      let count = 0;
      for (const term of new Set(queryTerms)) {
        const postings = terms.get(term);
        if (!postings) continue;
        const { docs, weights, size } = postings;
        let frequency = 0;
        for (let i = 0; i < size; i++) if (lengths[docs[i]!]! >= 0) frequency += 1;
        if (frequency === 0) continue;
        const idf = Math.log(1 + (live - frequency + 0.5) / (frequency + 0.5));
        for (let i = 0; i < size; i++) {
          const n = docs[i]!;
          const length = lengths[n]!;
          if (length < 0) continue;
          const tf = weights[i]!;
          if (scores[n] === 0) touched[count++] = n;
          scores[n] = scores[n]! + (idf * tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * length) / averageLength));
        }
      }
      for (let i = 0; i < count; i++) {
        const n = touched[i]!;
        const score = scores[n]!;
        scores[n] = 0;
        hit(keys[n] as K, score);
      }
    },
  };
}

/** An in-memory BM25F text index. */
export type TextIndex<K> = ReturnType<typeof createTextIndex<K>>;
