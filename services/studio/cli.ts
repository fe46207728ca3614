import { resolve } from "node:path";
import { parseArgs } from "node:util";
import type { Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { DEV_ROLE, devKey } from "../stack/devAccounts.ts";
import { readBundle, writeBundle } from "./bundleFiles.ts";
import { chooseWriter } from "./chooseWriter.ts";
import type { StudioEvent } from "./createEndpoint.ts";
import { draftEndpoint, launchEndpoint } from "./createEndpoint.ts";
import { localCreator } from "./creator.ts";
import { StudioError } from "./studioError.ts";
import { readStackFile } from "./studioTarget.ts";

/**
 * `npm run studio -- "<sentence>"`: one sentence becomes a verified, paid, listed endpoint on the running stack
 * (`npm start`). `--dry-run` stops after verify and writes the bundle for review; `--from <dir>` deploys a reviewed
 * bundle; `--json` prints machine-readable output.
 */
const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    "dry-run": { type: "boolean", default: false },
    out: { type: "string" },
    from: { type: "string" },
    json: { type: "boolean", default: false },
    rounds: { type: "string" },
    help: { type: "boolean", short: "h", default: false },
  },
});

const usage = `usage: npm run studio -- "<one sentence>" [--dry-run [--out <dir>]] [--json] [--rounds <n>]
       npm run studio -- --from <dir> [--json]
Environment: STACK_DIR (.stack), CREATOR_KEY (default: the stack's development creator, local chain only),
STUDIO_BUYER_KEY (default: the stack's first demo buyer), STUDIO_LLM_PROVIDER (catalog | openai | anthropic).`;

const sentence = positionals.join(" ");
if (values.help || (!sentence && !values.from)) {
  process.stderr.write(`${usage}\n`);
  process.exit(values.help ? 0 : 2);
}

const out = (line: string) => {
  if (!values.json) process.stdout.write(`${line}\n`);
};
const progress = (event: StudioEvent) => {
  if (event.status === "passed") out(`[studio] ${event.stage.padEnd(9)} ${String(event.ms ?? 0).padStart(8)} ms  ok`);
  if (event.status === "failed")
    out(`[studio] ${event.stage.padEnd(9)} ${String(event.ms ?? 0).padStart(8)} ms  FAILED`);
  if (event.status === "undone") out(`[studio] undo      ${event.message}`);
};

function isLoopback(url: string): boolean {
  return ["127.0.0.1", "localhost", "[::1]"].includes(new URL(url).hostname);
}

async function main(): Promise<number> {
  const stack = readStackFile(process.env.STACK_DIR ?? ".stack");
  const writer = chooseWriter(process.env);
  const rounds = values.rounds === undefined ? undefined : Number(values.rounds);
  const reviewed = values.from ? readBundle(resolve(values.from)) : undefined;
  const { bundle, stages } = await draftEndpoint({
    sentence: reviewed?.sentence ?? sentence,
    writer,
    target: stack,
    repairRounds: rounds,
    onEvent: progress,
    reviewed,
  });
  if (values["dry-run"]) {
    const dir = resolve(values.out ?? `studio-bundles/${bundle.contract.slug}`);
    writeBundle(dir, bundle);
    out(`bundle written to ${dir} (handler.mjs, contract.json, card.json, report.json); deploy it with --from ${dir}`);
    if (values.json) process.stdout.write(`${JSON.stringify({ dryRun: true, dir, stages, bundle }, null, 2)}\n`);
    return 0;
  }
  const key = process.env.CREATOR_KEY as Hex | undefined;
  if (!key && !isLoopback(stack.rpcUrl))
    throw new Error(
      "CREATOR_KEY is required off the local chain (the development creator is for the local stack only)",
    );
  const creator = localCreator(privateKeyToAccount(key ?? devKey(DEV_ROLE.creator)), {
    rpcUrl: stack.rpcUrl,
    registry: stack.contracts.registry,
  });
  const buyerKey = (process.env.STUDIO_BUYER_KEY as Hex | undefined) ?? stack.buyers[0]?.privateKey;
  if (!buyerKey) throw new Error("STUDIO_BUYER_KEY is required: the stack has no demo buyer to pay for the self-test");
  const listed = await launchEndpoint({
    bundle,
    target: stack,
    creator,
    buyer: privateKeyToAccount(buyerKey),
    onEvent: progress,
    stages,
  });
  const summary = {
    slug: bundle.contract.slug,
    resourceUrl: listed.deployed.resourceUrl,
    callUrl: listed.deployed.callUrl,
    cardUrl: listed.published.cardUrl,
    resourceId: listed.deployed.resourceId,
    agentId: listed.published.agentId,
    price: bundle.contract.price,
    transactions: {
      register: listed.published.transactions.register,
      selfTestDebit: listed.selfTest.debit.transaction,
    },
    stages,
  };
  if (values.json) process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
  else
    out(
      [
        "",
        `  listed       ${bundle.contract.name} (${summary.slug})`,
        `  resource     ${summary.resourceUrl}`,
        `  card         ${summary.cardUrl}`,
        `  resource id  ${summary.resourceId}`,
        `  agent id     ${summary.agentId}`,
        `  price        base ${summary.price.base}, per KB ${summary.price.perKB}, cap ${summary.price.max} (base units)`,
        `  register tx  ${summary.transactions.register ?? "(not found)"}`,
        `  self-test tx ${summary.transactions.selfTestDebit} (paid ${listed.selfTest.receipt.amount})`,
        "",
      ].join("\n"),
    );
  return 0;
}

main().then(
  (code) => process.exit(code),
  (error: Error) => {
    if (error instanceof StudioError) {
      const body = { error: { stage: error.stage, code: error.code, message: error.message }, details: error.details };
      if (values.json) process.stdout.write(`${JSON.stringify(body, null, 2)}\n`);
      else {
        process.stderr.write(`[studio] ${error.stage}: ${error.code}: ${error.message}\n`);
        const undone = error.details.undone as string[] | undefined;
        if (undone?.length) process.stderr.write(`[studio] undone: ${undone.join("; ")}\n`);
      }
    } else process.stderr.write(`[studio] ${error.message}\n`);
    process.exit(1);
  },
);
