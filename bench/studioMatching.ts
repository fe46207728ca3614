import { percentile } from "../services/protocol/percentile.ts";
import { parseCommandLine } from "../services/stack/parseCommandLine.ts";

/**
 * The catalog matcher alone, in a fresh process: its start-up (loading the modules, then the first sentence, which
 * loads wink-nlp's model and reads WordNet's indexes and every recipe's vocabulary), its memory, the time per sentence
 * over the paraphrase set, and the set's precision and recall per part. `bench/studio.ts` runs it first.
 */
const { values } = parseCommandLine(
  `usage: node bench/studioMatching.ts [--json]

The studio's catalog matcher in a fresh process: start-up, memory, time per sentence, and precision and recall over
the paraphrase set (testkit/studio/paraphrases*.ts). --json prints the figures as JSON.`,
  { options: { json: { type: "boolean", default: false } } },
);

const mb = (bytes: number) => Math.round((bytes / 1048576) * 10) / 10;
const before = process.memoryUsage();
const started = performance.now();
const { matchRecipe } = await import("../services/studio/catalog/matchRecipe.ts");
const { RECIPES } = await import("../services/studio/catalog/recipes.ts");
const { catalogWriter } = await import("../services/studio/catalog/catalogWriter.ts");
const { PARAPHRASES } = await import("../testkit/studio/paraphrases.ts");
const { HELD_OUT_PARAPHRASES, SECOND_HELD_OUT_PARAPHRASES } = await import("../testkit/studio/paraphrasesHeldOut.ts");
const { scoreParaphrases } = await import("../testkit/studio/scoreParaphrases.ts");
const loaded = performance.now();
matchRecipe("Return the SHA-256 hex digest of a text", RECIPES);
const ready = performance.now();
const atStart = process.memoryUsage();

const parts = {
  tuning: PARAPHRASES,
  "held out": HELD_OUT_PARAPHRASES,
  "held out, second": SECOND_HELD_OUT_PARAPHRASES,
};
const all = Object.values(parts).flat();
const times: number[] = [];
for (const [sentence] of all) {
  const t = performance.now();
  matchRecipe(`${sentence} `, RECIPES);
  times.push(performance.now() - t);
}
const scores = Object.fromEntries(
  await Promise.all(
    Object.entries({ ...parts, all }).map(async ([part, set]) => {
      const s = await scoreParaphrases(set, catalogWriter());
      return [
        part,
        {
          sentences: s.sentences,
          listed: s.listed,
          right: s.right,
          withRecipe: s.withRecipe,
          precision: s.precision,
          recall: s.recall,
        },
      ] as const;
    }),
  ),
);
const after = process.memoryUsage();

const figures = {
  startup: { loadMs: Math.round(loaded - started), firstSentenceMs: Math.round(ready - loaded) },
  memory: {
    rssBeforeMb: mb(before.rss),
    rssReadyMb: mb(atStart.rss),
    heapReadyMb: mb(atStart.heapUsed),
    rssAfterSetMb: mb(after.rss),
    heapAfterSetMb: mb(after.heapUsed),
  },
  perSentence: {
    p50Ms: Math.round(percentile(times, 50) * 10) / 10,
    p95Ms: Math.round(percentile(times, 95) * 10) / 10,
    maxMs: Math.round(Math.max(...times) * 10) / 10,
  },
  scores,
};

if (values.json) process.stdout.write(`${JSON.stringify(figures)}\n`);
else process.stdout.write(`${JSON.stringify(figures, null, 2)}\n`);
