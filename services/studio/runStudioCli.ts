import { resolve } from "node:path";
import type { Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { parseSettings } from "../keys/parseSettings.ts";
import { DEV_ROLE, devKey } from "../stack/devAccounts.ts";
import { askYesNo } from "./askYesNo.ts";
import { bundleDirProblem } from "./bundleDirProblem.ts";
import { readBundle, writeBundle } from "./bundleFiles.ts";
import type { AcceptedRecipe } from "./catalog/catalogWriter.ts";
import { catalogWriter } from "./catalog/catalogWriter.ts";
import { chooseWriter } from "./chooseWriter.ts";
import type { StudioCommandLine } from "./cli.ts";
import type { StudioEvent } from "./createEndpoint.ts";
import { draftEndpoint, launchEndpoint } from "./createEndpoint.ts";
import { localCreator } from "./creator.ts";
import { studioCliKeysSchema } from "./loadStudioConfig.ts";
import { publishSummary } from "./publishSummary.ts";
import { SetupError } from "./setupError.ts";
import { StudioError } from "./studioError.ts";
import { readStudioStack } from "./studioTarget.ts";
import { summaryLines } from "./summaryLines.ts";
import type { VerifyReport } from "./verify/verifyHandler.ts";

/** Exit code of a run that verified an endpoint but did not publish it: declined, or not asked (no terminal). */
const NOT_CONFIRMED_EXIT = 3;

/**
 * `npm run studio`, once its command line is read (cli.ts): drafts, verifies, asks and publishes, printing progress (or
 * JSON with --json), and exits with the code the usage lists.
 * @example await runStudioCli({ values, sentence })
 */
export async function runStudioCli({ values, sentence }: StudioCommandLine): Promise<void> {
  const out = (line: string) => {
    if (!values.json) process.stdout.write(`${line}\n`);
  };
  const progress = (event: StudioEvent) => {
    if (event.status === "passed") out(`[studio] ${event.stage.padEnd(9)} ${String(event.ms ?? 0).padStart(8)} ms  ok`);
    if (event.status === "failed")
      out(`[studio] ${event.stage.padEnd(9)} ${String(event.ms ?? 0).padStart(8)} ms  FAILED`);
    if (event.status === "undone") out(`[studio] undo      ${event.message}`);
  };
  const printJson = (value: unknown) => process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);

  function isLoopback(url: string): boolean {
    return ["127.0.0.1", "localhost", "[::1]"].includes(new URL(url).hostname);
  }

  function signers(stack: ReturnType<typeof readStudioStack>) {
    const parsed = parseSettings(studioCliKeysSchema, process.env, { CREATOR_KEY: "one", STUDIO_BUYER_KEY: "one" });
    if (!parsed.success)
      throw new SetupError(
        "invalid_settings",
        parsed.problems.join("; "),
        "give each key as 0x followed by 64 hex digits, or as NAME_FILE (a keystore) with NAME_PASSWORD_FILE",
      );
    const key = parsed.data.CREATOR_KEY as Hex | undefined;
    if (!key && !isLoopback(stack.rpcUrl))
      throw new SetupError(
        "missing_key",
        "CREATOR_KEY is required off the local chain (the development creator is for the local stack only)",
        "set CREATOR_KEY to the creator's private key (0x followed by 64 hex digits)",
      );
    const creator = localCreator(privateKeyToAccount(key ?? devKey(DEV_ROLE.creator)), {
      rpcUrl: stack.rpcUrl,
      registry: stack.contracts.registry,
    });
    const buyerKey = (parsed.data.STUDIO_BUYER_KEY as Hex | undefined) ?? stack.buyers[0]?.privateKey;
    if (!buyerKey)
      throw new SetupError(
        "missing_key",
        "the stack has no demo buyer to pay for the self-test",
        "set STUDIO_BUYER_KEY to a buyer key with an escrow balance",
      );
    return { creator, buyer: privateKeyToAccount(buyerKey) };
  }

  /** Whether the creator confirmed: `--yes`, or "y" on a terminal; undefined when nobody could be asked. */
  async function confirmed(lines: string[]): Promise<boolean | undefined> {
    if (values.yes) return true;
    if (!process.stdin.isTTY) return undefined;
    if (values.json) process.stderr.write(`${lines.join("\n")}\n\n`);
    return askYesNo(process.stdin, process.stderr, "Publish? [y/N] ");
  }

  /**
   * The catalog recipe the creator accepts for the sentence although it leaves words unexplained: asked on a terminal
   * when the catalog refused with a close recipe (`details.ask`); never with --yes or without a terminal.
   */
  async function acceptClose(error: unknown): Promise<AcceptedRecipe | undefined> {
    if (!(error instanceof StudioError) || error.code !== "no_match" || values.yes || !process.stdin.isTTY) return;
    const ask = error.data.ask as { recipe: string; title: string; does: string; unexplained: string[] } | undefined;
    if (!ask) return;
    const words = ask.unexplained.map((w) => `"${w}"`).join(", ");
    process.stderr.write(
      `\n[studio] the closest recipe, ${ask.title} (${ask.recipe}), does what the sentence asks but does not explain ${words}:\n` +
        `  ${ask.does}\n`,
    );
    const yes = await askYesNo(
      process.stdin,
      process.stderr,
      `List ${ask.title} anyway, ${words} not changing what it does? [y/N] `,
    );
    return yes ? { recipe: ask.recipe, words: ask.unexplained } : undefined;
  }

  async function main(): Promise<number> {
    const stack = readStudioStack(process.env.STACK_DIR ?? ".stack");
    const writer = chooseWriter(
      values["llm-deadline"] === undefined
        ? process.env
        : { ...process.env, STUDIO_LLM_DEADLINE_SECONDS: values["llm-deadline"] },
    );
    const keys = values["dry-run"] ? undefined : signers(stack);
    const reviewed = values.from ? readBundle(resolve(values.from)) : undefined;
    const draft = (chosen: typeof writer) =>
      draftEndpoint({
        sentence: reviewed?.sentence ?? sentence,
        writer: chosen,
        target: stack,
        repairRounds: values.rounds === undefined ? undefined : Number(values.rounds),
        onEvent: progress,
        reviewed,
      });
    const { bundle, stages } = await draft(writer).catch(async (error: unknown) => {
      const accept = writer.name === "catalog" ? await acceptClose(error) : undefined;
      if (!accept) throw error;
      return draft(catalogWriter({ accept }));
    });
    const summary = publishSummary(bundle);
    const lines = ["", ...summaryLines(summary), ""];
    if (values["dry-run"] || !keys) {
      const dir = resolve(values.out ?? `studio-bundles/${bundle.contract.slug}`);
      // --out was checked with the command line; the default folder is named only now, by the contract's slug.
      const problem = values.out === undefined ? bundleDirProblem(dir) : undefined;
      if (problem)
        throw new SetupError("invalid_settings", problem, "name a new or empty folder for the bundle with --out <dir>");
      writeBundle(dir, bundle);
      out(lines.join("\n"));
      out(
        `bundle written to ${dir} (handler.mjs, contract.json, card.json, report.json); publish it with --from ${dir}`,
      );
      if (values.json) printJson({ dryRun: true, dir, stages, wouldPublish: summary, bundle });
      return 0;
    }
    out(lines.join("\n"));
    const answer = await confirmed(lines);
    if (answer !== true) {
      const reason = answer === false ? "declined" : "not_confirmed";
      const next =
        answer === false
          ? "nothing was deployed; run again and answer y to publish"
          : "nothing was deployed: stdin is not a terminal, so nobody was asked; run again with --yes to publish";
      if (values.json) printJson({ published: false, reason, next, wouldPublish: summary, stages });
      else process.stderr.write(`[studio] not published: ${next}\n`);
      return NOT_CONFIRMED_EXIT;
    }
    const listed = await launchEndpoint({ bundle, target: stack, ...keys, onEvent: progress, stages });
    const result = {
      published: true,
      slug: bundle.contract.slug,
      resourceUrl: listed.deployed.resourceUrl,
      callUrl: listed.deployed.callUrl,
      cardUrl: listed.published.cardUrl,
      resourceId: listed.deployed.resourceId,
      agentId: listed.published.agentId,
      price: bundle.contract.price,
      priceFloor: bundle.priceFloor,
      transactions: {
        register: listed.published.transactions.register,
        // A committed debit the relayer holds has no transaction yet: its settlementId names it.
        selfTestDebit: listed.selfTest.debit.settlement === "confirmed" ? listed.selfTest.debit.transaction : null,
        ...(listed.selfTest.debit.settlement === "committed"
          ? { selfTestSettlementId: listed.selfTest.debit.settlementId }
          : {}),
      },
      stages,
    };
    if (values.json) printJson(result);
    else
      out(
        [
          "",
          `  listed       ${bundle.contract.name} (${result.slug})`,
          `  resource     ${result.resourceUrl}`,
          `  card         ${result.cardUrl}`,
          `  resource id  ${result.resourceId}`,
          `  agent id     ${result.agentId}`,
          `  price        base ${result.price.base}, per KB ${result.price.perKB}, cap ${result.price.max} (base units)${
            bundle.priceFloor.raised
              ? `, raised from ${bundle.priceFloor.measured.base} to the marketplace's floor`
              : ""
          }`,
          `  register tx  ${result.transactions.register ?? "(not found)"}`,
          `  self-test tx ${result.transactions.selfTestDebit ?? `(committed, held: settlement ${listed.selfTest.debit.settlement === "committed" ? listed.selfTest.debit.settlementId : ""})`} (paid ${listed.selfTest.receipt.amount})`,
          "",
        ].join("\n"),
      );
    return 0;
  }

  /** What went wrong, in one shape for every failure: the stage, a code, the message and the next step. */
  function failureOf(error: unknown): {
    error: { stage: string; code: string; message: string; next: string };
    details: Record<string, unknown>;
  } {
    if (error instanceof StudioError)
      return {
        error: { stage: error.stage, code: error.code, message: error.message, next: error.next },
        details: error.data,
      };
    if (error instanceof SetupError)
      return { error: { stage: "setup", code: error.code, message: error.message, next: error.next }, details: {} };
    return {
      error: {
        stage: "internal",
        code: "internal_error",
        message: (error as Error).message,
        next: "this is a bug in the studio: report it with the command that was run",
      },
      details: {},
    };
  }

  function reportLine(report: VerifyReport | undefined): string | undefined {
    const failed = report?.checks.filter((c) => !c.passed);
    if (!failed?.length) return undefined;
    return `the last verification failed ${failed.map((c) => `${c.check} (${c.failures.length})`).join(", ")}; --json shows each failure`;
  }

  main().then(
    (code) => process.exit(code),
    (error: unknown) => {
      const { error: failure, details } = failureOf(error);
      if (values.json) printJson({ error: failure, details });
      else {
        const lines = [`${failure.stage}: ${failure.code}: ${failure.message}`];
        const undone = details.undone as string[] | undefined;
        if (undone?.length) lines.push(`undone: ${undone.join("; ")}`);
        const report = reportLine(details.report as VerifyReport | undefined);
        if (report) lines.push(report);
        lines.push(`next: ${failure.next}`);
        process.stderr.write(lines.map((line) => `[studio] ${line}\n`).join(""));
      }
      process.exit(1);
    },
  );
}
