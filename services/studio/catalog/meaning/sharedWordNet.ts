import type { WordNet } from "./openWordNet.ts";
import { openWordNet } from "./openWordNet.ts";

let shared: WordNet | undefined;

/**
 * The process's one WordNet, opened on first use (its index files read once) and kept open: each synset is then read
 * from disk the first time a word needs it.
 * @example sharedWordNet().senses("integer", "n")
 */
export function sharedWordNet(): WordNet {
  shared ??= openWordNet();
  return shared;
}
