import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { privateKeyToAccount } from "viem/accounts";
import { percentile } from "../services/protocol/percentile.ts";
import { DEV_ROLE, devKey } from "../services/stack/devAccounts.ts";
import { parseCommandLine } from "../services/stack/parseCommandLine.ts";
import { catalogWriter } from "../services/studio/catalog/catalogWriter.ts";
import { CATALOG_SENTENCES } from "../services/studio/catalog/sampleSentences.ts";
import { createEndpoint } from "../services/studio/createEndpoint.ts";
import { localCreator } from "../services/studio/creator.ts";
import { runStack, stackPorts } from "../testkit/stack/runStack.ts";
import { envCount } from "./benchEnv.ts";
import { machineLine, writeBenchSection } from "./benchReport.ts";

/**
 * `npm run bench:studio`: sentence → listed with the catalog provider on a fresh `npm start` stack, timed per stage
 * (specify, verify, deploy, publish, self-test) and end to end; writes the "studio" section of docs/benchmarks.md.
 * `BENCH_ROUNDS` (default 2) times through the 12 sentences.
 */
parseCommandLine(
  `usage: npm run bench:studio

Sentence → listed with the catalog provider on a fresh \`npm start\` stack, per stage and end to end (through the
library, so no question is asked); writes the "Studio" section of docs/benchmarks.md. Environment: BENCH_ROUNDS (2).`,
  {},
);

const ROUNDS = envCount("BENCH_ROUNDS", 2);
const STAGES = ["specify", "verify", "deploy", "publish", "self-test"] as const;

const stackDir = mkdtempSync(join(tmpdir(), "studio-bench-"));
process.stderr.write("[bench:studio] starting a stack (npm start)\n");
const running = await runStack(
  // The test network's block time unless told otherwise: a block every 500 ms.
  { STACK_DIR: stackDir, CHAIN_MINING: process.env.CHAIN_MINING ?? "interval", ...(await stackPorts()) },
  { direct: true },
);
const samples: Record<string, number[]> = Object.fromEntries([...STAGES, "total"].map((s) => [s, []]));
try {
  const stack = running.stack;
  const creator = localCreator(privateKeyToAccount(devKey(DEV_ROLE.creator)), {
    rpcUrl: stack.rpcUrl,
    registry: stack.contracts.registry,
  });
  const buyer = privateKeyToAccount(stack.buyers[0]?.privateKey ?? devKey(DEV_ROLE.buyer));
  for (let round = 0; round < ROUNDS; round++) {
    for (const sentence of CATALOG_SENTENCES) {
      const started = performance.now();
      const listed = await createEndpoint({ sentence, writer: catalogWriter(), target: stack, creator, buyer });
      const total = performance.now() - started;
      samples.total?.push(total);
      for (const { stage, ms } of listed.stages) samples[stage]?.push(ms);
      process.stderr.write(`[bench:studio] ${(total / 1000).toFixed(2)} s  ${sentence}\n`);
    }
  }
} finally {
  running.kill();
  rmSync(stackDir, { recursive: true, force: true });
}

const row = (name: string) => {
  const values = samples[name] ?? [];
  const f = (ms: number) => (ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(0)} ms`);
  return `| ${name} | ${f(percentile(values, 50))} | ${f(percentile(values, 95))} | ${f(Math.max(...values))} |`;
};
const count = samples.total?.length ?? 0;
const markdown = `
## Studio

Command: \`npm run bench:studio\` (bench/studio.ts): ${count} sentences (${CATALOG_SENTENCES.length} different, ${ROUNDS} rounds)
taken from sentence to listed with the catalog provider on a fresh \`npm start\` stack, one after another; each reaches
"listed" and is paid for once by its self-test (402 quote, payment, debit mined). Verify runs each handler in its own
workerd process with at least 100 generated inputs. Machine: ${machineLine()}. Target: ≤ 10 s end to end.

| stage | p50 | p95 | max |
|---|---|---|---|
${STAGES.map(row).join("\n")}
| **sentence → listed** | ${row("total").split("|").slice(2).join("|").trim()}

The first sentence of the run (cold: the first workerd process and module loads) took ${((samples.total?.[0] ?? 0) / 1000).toFixed(2)} s.
`;
writeBenchSection("studio", markdown);
process.stdout.write(markdown);
