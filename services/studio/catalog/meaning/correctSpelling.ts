/** Optimal string alignment distance (Damerau-Levenshtein with adjacent transpositions), stopping above `limit`. */
function distance(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let before: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min((previous[j] ?? 0) + 1, (row[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, (before[j - 2] ?? 0) + 1);
      row.push(d);
      best = Math.min(best, d);
    }
    if (best > limit) return limit + 1;
    before = previous;
    previous = row;
  }
  return previous[b.length] ?? limit + 1;
}

/**
 * The one known word a misspelt word is closest to: one edit away for words of 4 to 7 letters, two for longer ones;
 * undefined when none is, when two are equally close, or when the word has a digit ("sha3" is not "sha1").
 * @example correctSpelling("palindrom", new Set(["palindrome", "anagram"])) // "palindrome"
 */
export function correctSpelling(word: string, known: ReadonlySet<string>): string | undefined {
  if (word.length < 4 || !/^\p{L}+$/u.test(word)) return undefined;
  const limit = word.length >= 8 ? 2 : 1;
  let found: string | undefined;
  let nearest = limit + 1;
  let ties = 0;
  for (const candidate of known) {
    if (!/^\p{L}+$/u.test(candidate)) continue;
    const d = distance(word, candidate, limit);
    if (d < nearest) {
      nearest = d;
      found = candidate;
      ties = 1;
    } else if (d === nearest) ties++;
  }
  return nearest <= limit && ties === 1 ? found : undefined;
}
