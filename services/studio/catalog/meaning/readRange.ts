/** A bound on a number a sentence asks the endpoint to take ("between 1 and 3999", "up to 90"), and its words. */
export type NumberRange = { minimum?: number; maximum?: number; text: string };

const NUMBER = String.raw`(-?\d+(?:\.\d+)?|a (?:thousand|million|billion))`;
const NAMED: Record<string, number> = { "a thousand": 1e3, "a million": 1e6, "a billion": 1e9 };

/** Words that may follow a bound on the number itself; any other word makes the number a count of that word. */
const AFTER = String.raw`(?=\s*(?:$|[,.;:)]|(?:as|into|in|to|is|are|inclusive|only|and|or|then|with|for|please|exactly)\b))`;

const PATTERNS: [RegExp, (a: number, b: number) => Omit<NumberRange, "text">][] = [
  [
    new RegExp(String.raw`\b(?:between|from)\s+${NUMBER}\s+(?:and|to|through|-)\s+${NUMBER}${AFTER}`, "gi"),
    (a, b) => ({ minimum: Math.min(a, b), maximum: Math.max(a, b) }),
  ],
  [
    new RegExp(String.raw`(?<![\d-])(\d+)(?:-|–|\.\.)(\d+)(?![\d-])${AFTER}`, "gi"),
    (a, b) => ({ minimum: Math.min(a, b), maximum: Math.max(a, b) }),
  ],
  [
    new RegExp(
      String.raw`(?:\bup to|\bat most|\bno (?:more|greater|bigger|larger) than|\bnot (?:more|greater) than|\bnot exceeding|<=|≤)\s*${NUMBER}${AFTER}`,
      "gi",
    ),
    (a) => ({ maximum: a }),
  ],
  [
    new RegExp(String.raw`(?:\bless than|\bsmaller than|\bbelow|\bunder|<)\s*${NUMBER}${AFTER}`, "gi"),
    (a) => ({ maximum: Number.isInteger(a) ? a - 1 : a }),
  ],
  [
    new RegExp(String.raw`(?:\bat least|\bno (?:less|fewer|smaller) than|>=|≥)\s*${NUMBER}${AFTER}`, "gi"),
    (a) => ({ minimum: a }),
  ],
  [
    new RegExp(
      String.raw`(?:\bmore than|\bgreater than|\bbigger than|\blarger than|\babove|\bover|>)\s*${NUMBER}${AFTER}`,
      "gi",
    ),
    (a) => ({ minimum: Number.isInteger(a) ? a + 1 : a }),
  ],
];

const numberOf = (text: string) => NAMED[text.toLowerCase()] ?? Number(text);

/**
 * The bounds a sentence puts on a number it asks the endpoint to take: "between 1 and 3999", "1-100", "up to 90",
 * "below 4000" (3999), "at least 2". A number followed by another word ("up to 50 characters", "batches of 10 items")
 * is a count of that word, not a bound. Each range keeps its words so the matcher can name one a recipe cannot take.
 * @example readRange("Write a whole number between 1 and 3999 as Roman numerals") // [{ minimum: 1, maximum: 3999, text: "between 1 and 3999" }]
 */
export function readRange(sentence: string): NumberRange[] {
  const ranges: NumberRange[] = [];
  const taken: [number, number][] = [];
  for (const [pattern, bound] of PATTERNS)
    for (const match of sentence.matchAll(pattern)) {
      const start = match.index;
      const end = start + match[0].length;
      if (taken.some(([s, e]) => start < e && end > s)) continue;
      taken.push([start, end]);
      ranges.push({ ...bound(numberOf(match[1] ?? ""), numberOf(match[2] ?? "")), text: match[0].trim() });
    }
  return ranges;
}
