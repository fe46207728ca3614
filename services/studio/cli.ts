import { resolve } from "node:path";
import { parseCommandLine, usageError } from "../stack/parseCommandLine.ts";
import { bundleDirProblem } from "./bundleDirProblem.ts";

const USAGE = `usage: npm run studio -- "<one sentence>" [options]
       npm run studio -- --from <dir> [options]

One sentence becomes a verified, paid, listed endpoint on the running stack (npm start). After verify the studio
prints what it would publish and asks "Publish? [y/N]" on a terminal; nothing is deployed before the answer. When
the offline catalog's closest recipe does what the sentence asks but a word or two stays unexplained, it shows the
recipe and the words and asks "List it anyway? [y/N]" on a terminal; --yes refuses instead.

  --yes                publish without asking, and list only what the catalog fully explains (required when
                       stdin is not a terminal)
  --dry-run            stop after verify and write the bundle for review (nothing is asked or deployed)
  --out <dir>          where --dry-run writes the bundle: a new or empty folder (default studio-bundles/<slug>)
  --from <dir>         verify a reviewed bundle again, then publish it
  --json               machine-readable output on stdout
  --rounds <n>         repair rounds after the first attempt (default 3)
  --llm-deadline <s>   longest wait for the model in one stage, in seconds (default 120,
                       or STUDIO_LLM_DEADLINE_SECONDS)
  -h, --help           this text

Environment: STACK_DIR (.stack), CREATOR_KEY (default: the stack's development creator, local chain only),
STUDIO_BUYER_KEY (default: the stack's first demo buyer); each key as hex or as a keystore (CREATOR_KEY_FILE with
CREATOR_KEY_PASSWORD_FILE, the same for STUDIO_BUYER_KEY), STUDIO_LLM_PROVIDER (catalog | openai | anthropic) with
STUDIO_LLM_URL, STUDIO_LLM_MODEL, STUDIO_LLM_KEY, STUDIO_LLM_DEADLINE_SECONDS, STUDIO_LLM_MAX_TOKENS
(services/studio/README.md).

Exit codes: 0 listed (or bundle written), 1 refused or failed, 2 usage, 3 verified but not published (declined, or
stdin is not a terminal and --yes was not given).`;

const { values, positionals } = parseCommandLine(USAGE, {
  allowPositionals: true,
  options: {
    yes: { type: "boolean", short: "y", default: false },
    "dry-run": { type: "boolean", default: false },
    out: { type: "string" },
    from: { type: "string" },
    json: { type: "boolean", default: false },
    rounds: { type: "string" },
    "llm-deadline": { type: "string" },
  },
});

const sentence = positionals.join(" ");
if (!sentence && !values.from) usageError(USAGE, "a sentence or --from <dir> is required");
if (sentence && values.from) usageError(USAGE, "give either a sentence or --from <dir>, not both");
if (values.out && !values["dry-run"]) usageError(USAGE, "--out goes with --dry-run");
const outProblem = values.out === undefined ? undefined : bundleDirProblem(resolve(values.out));
if (outProblem) usageError(USAGE, `--out: ${outProblem}`);
if (values.rounds !== undefined && !/^\d{1,2}$/.test(values.rounds))
  usageError(USAGE, `--rounds must be a whole number from 0 to 99, not "${values.rounds}"`);
const deadline = values["llm-deadline"];
if (deadline !== undefined && !(Number(deadline) > 0 && Number(deadline) <= 3_600))
  usageError(USAGE, `--llm-deadline must be a number of seconds above 0 and at most 3600, not "${deadline}"`);

/** The command line as read: what the studio's run takes. */
export type StudioCommandLine = { values: typeof values; sentence: string };

// The studio's run takes about half a second of CPU to load its imports: loaded after the command line, so that --help
// and a wrong option answer at once.
const { runStudioCli } = await import("./runStudioCli.ts");
await runStudioCli({ values, sentence });
