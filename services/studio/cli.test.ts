import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "chai";
import { freePort } from "../../testkit/freePort.ts";
import { openai } from "../../testkit/studio/modelServers.ts";
import type { RecordedAnswer, WireAnswer } from "../../testkit/studio/wireServer.ts";
import { startWireServer } from "../../testkit/studio/wireServer.ts";
import { CHAIN_ID } from "../protocol/constants.ts";
import { DEV_ROLE, devKey } from "../stack/devAccounts.ts";
import { writeStackFile } from "../stack/stackFile.ts";

const root = new URL("../..", import.meta.url).pathname;
const SENTENCE = "Return the SHA-256 hex digest of a text";
const QUESTION = "Publish? [y/N]";
/** The digest recipe does what this asks, but the catalog does not explain "blazingly" and "fast". */
const CLOSE_SENTENCE = "Return the SHA-256 hex digest of a text, blazingly fast";
const ANYWAY = "anyway,";

type Run = { code: number | null; stdout: string; stderr: string };
type Wire = Awaited<ReturnType<typeof startWireServer>>;

/**
 * Runs `node services/studio/cli.ts` as `npm run studio` does. With `tty`, inside a real pseudo-terminal
 * (util-linux `script`), answering each question (a piece of its text → the answer) once when it appears; otherwise
 * with stdin a closed pipe.
 */
function runCli(args: string[], env: Record<string, string | undefined>, tty?: Record<string, string>): Promise<Run> {
  const quoted = [process.execPath, "services/studio/cli.ts", ...args]
    .map((a) => `'${a.replace(/'/g, "'\\''")}'`)
    .join(" ");
  const child = tty
    ? spawn("script", ["-qec", quoted, "/dev/null"], { cwd: root, env })
    : spawn(process.execPath, ["services/studio/cli.ts", ...args], { cwd: root, env });
  let stdout = "";
  let stderr = "";
  const asked = new Set<string>();
  child.stdout.on("data", (chunk: Buffer) => {
    stdout += chunk.toString("utf8");
    for (const [question, answer] of Object.entries(tty ?? {}))
      if (!asked.has(question) && stdout.includes(question)) {
        asked.add(question);
        child.stdin.write(`${answer}\n`);
      }
  });
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8");
  });
  if (!tty) child.stdin.end();
  return new Promise((resolve) => child.on("close", (code) => resolve({ code, stdout, stderr })));
}

describe("npm run studio: usage, the question before publishing, and failures that say what to do", function () {
  this.timeout(300_000);
  let stackDir: string;
  let host: Wire;
  const REFUSED: RecordedAnswer = {
    status: 401,
    json: { error: { code: "unauthorized", message: "a valid bearer token is required" } },
  };
  let hostAnswer: RecordedAnswer = REFUSED;
  const wires: Wire[] = [];
  const env = (extra: Record<string, string> = {}) => {
    const clean = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("STUDIO_")));
    return { ...clean, STACK_DIR: stackDir, CREATOR_KEY: undefined, ...extra };
  };
  const model = async (answers: WireAnswer[]) => {
    const wire = await startWireServer(answers);
    wires.push(wire);
    return wire;
  };

  before(async function () {
    stackDir = mkdtempSync(join(tmpdir(), "studio-cli-"));
    // The host refuses every deployment (unless a test says otherwise): a run that gets as far as deploy shows up
    // here, and stops there.
    host = await startWireServer([() => hostAnswer]);
    const unused = `http://127.0.0.1:${await freePort()}`;
    writeStackFile(stackDir, {
      chainId: CHAIN_ID,
      rpcUrl: unused,
      marketplaceUrl: unused,
      facilitatorUrl: unused,
      hostUrl: host.url,
      indexerUrl: unused,
      publishToken: "publish-token-0123456789",
      hostToken: "host-token-0123456789",
      contracts: {
        token: "0x0000000000000000000000000000000000000001",
        identity: "0x0000000000000000000000000000000000000004",
        escrow: "0x0000000000000000000000000000000000000002",
        registry: "0x0000000000000000000000000000000000000003",
      },
      buyers: [{ address: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8", privateKey: devKey(DEV_ROLE.buyer) }],
      resources: [],
    });
  });
  beforeEach(() => {
    host.requests.splice(0);
    hostAnswer = REFUSED;
  });
  afterEach(async () => Promise.all(wires.splice(0).map((w) => w.close())));
  after(async () => {
    await host.close();
    rmSync(stackDir, { recursive: true, force: true });
  });

  describe("usage", function () {
    it("--bogus prints the problem and the usage on stderr and exits 2, without a stack trace", async function () {
      const run = await runCli(["--bogus", SENTENCE], env());
      expect(run.code).to.equal(2);
      expect(run.stderr).to.match(/^Unknown option '--bogus'/);
      expect(run.stderr).to.include("usage: npm run studio");
      expect(run.stderr).to.not.match(/ERR_PARSE_ARGS|\n +at /);
      expect(run.stdout).to.equal("");
    });

    it("--help prints the usage on stdout and exits 0", async function () {
      const run = await runCli(["--help"], env());
      expect(run.code).to.equal(0);
      expect(run.stdout).to.match(/^usage: npm run studio/);
      expect(run.stdout).to.include("--yes");
      expect(run.stdout).to.include("Exit codes:");
    });

    it("exits 2 without a sentence, or with a bad --rounds or --llm-deadline", async function () {
      for (const args of [
        [],
        ["--rounds", "x", SENTENCE],
        ["--llm-deadline", "0", SENTENCE],
        ["--out", "x", SENTENCE],
      ]) {
        const run = await runCli(args, env());
        expect(run.code, args.join(" ")).to.equal(2);
        expect(run.stderr).to.include("usage: npm run studio");
      }
    });
  });

  describe("the question before publishing", function () {
    it("without a terminal and without --yes: stops after verify, prints what it would publish, exits 3, deploys nothing", async function () {
      const run = await runCli([SENTENCE], env());
      expect(run.code).to.equal(3);
      expect(run.stdout).to.match(/\[studio\] verify +[0-9.]+ ms {2}ok/);
      for (const label of ["name", "does", "request", "response", "examples", "price", "written by", "verified"])
        expect(run.stdout).to.match(new RegExp(`^ {2}${label} +\\S`, "m"));
      expect(run.stdout).to.match(/written by +catalog recipe digest \(algorithm=SHA-256\)/);
      expect(run.stdout).to.match(
        /^ {2}price floor +unknown: http:\S+\/pricing\/floor did not answer .*checks the price when it is published$/m,
      );
      expect(run.stdout).to.not.include(QUESTION);
      expect(run.stderr).to.match(/not published: nothing was deployed: stdin is not a terminal.*--yes/);
      expect(host.requests).to.have.length(0);
    });

    it("--json without a terminal: the contract it would publish, published false", async function () {
      const run = await runCli(["--json", SENTENCE], env());
      expect(run.code).to.equal(3);
      const out = JSON.parse(run.stdout);
      expect(out.published).to.equal(false);
      expect(out.reason).to.equal("not_confirmed");
      expect(out.wouldPublish.name).to.equal("SHA-256 digest");
      expect(out.wouldPublish.requestSchema.required).to.deep.equal(["text"]);
      expect(out.wouldPublish.examples).to.have.length.at.least(3);
      expect(out.wouldPublish.writtenBy).to.include({ provider: "catalog", recipe: "digest" });
      expect(Object.keys(out.wouldPublish.price)).to.deep.equal(["base", "perKB", "max"]);
      expect(host.requests).to.have.length(0);
    });

    it("on a terminal, 'n' (or anything but y) publishes nothing and exits 3", async function () {
      const run = await runCli([SENTENCE], env(), { [QUESTION]: "n" });
      expect(run.stdout).to.include(QUESTION);
      expect(run.stdout).to.match(/not published: nothing was deployed; run again and answer y/);
      expect(run.code).to.equal(3);
      expect(host.requests).to.have.length(0);
    });

    it("on a terminal, 'y' goes on to deploy", async function () {
      const run = await runCli([SENTENCE], env(), { [QUESTION]: "y" });
      expect(run.stdout).to.include(QUESTION);
      expect(host.requests.map((r) => `${r.method} ${r.path}`)).to.deep.equal(["POST /deployments"]);
      expect(run.stdout).to.match(/deploy: deploy_refused: the host refused the deployment: 401 unauthorized/);
      expect(run.stdout).to.match(/\[studio\] next: .*hostToken/);
      expect(run.code).to.equal(1);
    });

    it("a host that replaced this creator's earlier deployment of the slug (200) is deploy_replaced, not a wrong token", async function () {
      // Before, the 200 read as a refusal naming a wrong hostToken, while the host had swapped the live handler.
      hostAnswer = { status: 200, json: { slug: "x", resourceId: `0x${"ab".repeat(32)}` } };
      const run = await runCli(["--yes", "--json", SENTENCE], env());
      const out = JSON.parse(run.stdout);
      expect(out.error).to.deep.include({ stage: "deploy", code: "deploy_replaced" });
      expect(out.error.message).to.match(/replaced the earlier deployment of .* \(200\)/);
      expect(out.error.next).to.match(/live on the host unverified/);
      expect(run.code).to.equal(1);
    });

    it("--yes goes on to deploy without asking", async function () {
      const run = await runCli(["--yes", "--json", SENTENCE], env());
      expect(host.requests).to.have.length(1);
      const out = JSON.parse(run.stdout);
      expect(out.error).to.deep.include({ stage: "deploy", code: "deploy_refused" });
      expect(out.error.next).to.be.a("string").that.is.not.empty;
      expect(run.code).to.equal(1);
    });
  });

  describe("a sentence the catalog's closest recipe does not fully explain", function () {
    it("on a terminal, shows the recipe and the words and asks; 'y' lists it, saying which words it does not explain", async function () {
      const run = await runCli([CLOSE_SENTENCE], env(), { [ANYWAY]: "y", [QUESTION]: "n" });
      expect(run.stdout).to.match(
        /the closest recipe, Text digest \(digest\), does what the sentence asks but does not explain "blazingly", "fast"/,
      );
      expect(run.stdout).to.include(`List Text digest ${ANYWAY}`);
      expect(run.stdout).to.match(
        /written by +catalog recipe digest \(algorithm=SHA-256\), match score [0-9.]+; listed although it does not explain "blazingly", "fast", as the creator said/,
      );
      expect(run.stdout).to.include(QUESTION);
      expect(run.code).to.equal(3);
      expect(host.requests).to.have.length(0);
    });

    it("on a terminal, 'n' refuses it with no_match and the closest recipes", async function () {
      const run = await runCli([CLOSE_SENTENCE], env(), { [ANYWAY]: "n" });
      expect(run.stdout).to.include(`List Text digest ${ANYWAY}`);
      expect(run.stdout).to.match(/\[studio\] specify: no_match: no catalog recipe does what this sentence asks/);
      expect(run.stdout).to.match(/- Text digest \(digest\): .*; does not explain "blazingly", "fast"/);
      expect(run.stdout).to.not.include(QUESTION);
      expect(run.code).to.equal(1);
      expect(host.requests).to.have.length(0);
    });

    it("--yes lists only what is fully explained: refused with the closest recipes, never asked", async function () {
      const run = await runCli(["--yes", "--json", CLOSE_SENTENCE], env());
      expect(run.code).to.equal(1);
      const out = JSON.parse(run.stdout);
      expect(out.error).to.deep.include({ stage: "specify", code: "no_match" });
      expect(out.details.closest).to.have.length(3);
      expect(out.details.ask).to.deep.include({ recipe: "digest", unexplained: ["blazingly", "fast"] });
      expect(run.stderr).to.not.include(ANYWAY);
      expect(host.requests).to.have.length(0);
    });

    it("without a terminal it is not asked either", async function () {
      const run = await runCli([CLOSE_SENTENCE], env());
      expect(run.code).to.equal(1);
      expect(run.stderr).to.match(/\[studio\] specify: no_match/);
      expect(run.stderr).to.not.include(ANYWAY);
    });
  });

  describe("a bad key, bundle or --out is named before any work, never reported as a bug in the studio", function () {
    const noBug = (run: Run) => expect(run.stdout + run.stderr).to.not.match(/internal|bug in the studio/);

    it("a malformed CREATOR_KEY or STUDIO_BUYER_KEY: setup invalid_settings naming the setting, not the key", async function () {
      const creator = await runCli(["--yes", SENTENCE], env({ CREATOR_KEY: "0x1234" }));
      expect(creator.code).to.equal(1);
      expect(creator.stderr).to.match(
        /^\[studio\] setup: invalid_settings: CREATOR_KEY: must be 0x followed by 64 hex digits$/m,
      );
      expect(creator.stderr).to.match(/^\[studio\] next: give each key as 0x followed by 64 hex digits/m);
      expect(creator.stdout).to.not.match(/\[studio\] specify/);
      noBug(creator);
      const buyer = await runCli(["--yes", "--json", SENTENCE], env({ STUDIO_BUYER_KEY: "not-a-key" }));
      expect(buyer.code).to.equal(1);
      const { error } = JSON.parse(buyer.stdout);
      expect(error).to.deep.include({ stage: "setup", code: "invalid_settings" });
      expect(error.message).to.include("STUDIO_BUYER_KEY").and.not.include("not-a-key");
      expect(host.requests).to.have.length(0);
    });

    it("--from a folder that is missing or holds no bundle: setup no_bundle naming the folder and the files", async function () {
      const missing = join(stackDir, "no-such-bundle");
      const gone = await runCli(["--from", missing], env());
      expect(gone.code).to.equal(1);
      expect(gone.stderr).to.include(`[studio] setup: no_bundle: cannot read the bundle folder ${missing}`);
      expect(gone.stderr).to.match(/^\[studio\] next: give --from a folder written by --dry-run/m);
      noBug(gone);
      const empty = mkdtempSync(join(stackDir, "empty-"));
      const nothing = await runCli(["--json", "--from", empty], env());
      const { error } = JSON.parse(nothing.stdout);
      expect(error).to.deep.include({ stage: "setup", code: "no_bundle" });
      for (const file of ["contract.json", "sentence.txt", "handler.mjs"]) expect(error.message).to.include(file);
    });

    it("--from a bundle whose contract.json was edited into one that does not validate: invalid_bundle naming the file and the field", async function () {
      const dir = join(stackDir, "bundle");
      const written = await runCli(["--dry-run", "--out", dir, SENTENCE], env());
      expect(written.code, written.stderr).to.equal(0);
      const file = join(dir, "contract.json");
      const contract = JSON.parse(readFileSync(file, "utf8"));
      contract.price.base = "-5";
      writeFileSync(file, JSON.stringify(contract));
      const edited = await runCli(["--yes", "--from", dir], env());
      expect(edited.code).to.equal(1);
      expect(edited.stderr).to.match(
        new RegExp(`^\\[studio\\] setup: invalid_bundle: ${file}: price\\.base: amount must be a decimal string`, "m"),
      );
      expect(edited.stderr).to.match(new RegExp(`^\\[studio\\] next: fix price\\.base in ${file}`, "m"));
      expect(edited.stderr.trim().split("\n")).to.have.length(2);
      noBug(edited);
      writeFileSync(file, "{");
      const cut = await runCli(["--yes", "--json", "--from", dir], env());
      expect(JSON.parse(cut.stdout).error).to.deep.include({ stage: "setup", code: "invalid_bundle" });
      expect(JSON.parse(cut.stdout).error.message).to.include(`${file} is not JSON`);
      expect(host.requests).to.have.length(0);
    });

    it("--dry-run --out a file, a folder under a file or a folder that is not empty: a usage error before any work", async function () {
      const file = join(stackDir, "a-file");
      writeFileSync(file, "keep me\n");
      const full = mkdtempSync(join(stackDir, "full-"));
      writeFileSync(join(full, "contract.json"), "{}\n");
      for (const [out, problem] of [
        [file, `${file} is a file, not a folder`],
        [join(file, "bundle"), `${file} is a file, so ${join(file, "bundle")} cannot be made`],
        [full, `${full} is not empty`],
      ] as const) {
        const run = await runCli(["--dry-run", "--out", out, SENTENCE], env());
        expect(run.code, out).to.equal(2);
        expect(run.stderr).to.include(`--out: ${problem}`);
        expect(run.stderr).to.include("usage: npm run studio");
        expect(run.stdout).to.equal("");
      }
      expect(readFileSync(file, "utf8")).to.equal("keep me\n");
      expect(readFileSync(join(full, "contract.json"), "utf8")).to.equal("{}\n");
    });
  });

  describe("a model server that fails says so, with the stage, code, URL and next step (also under --json)", function () {
    const llm = (url: string, extra: Record<string, string> = {}) =>
      env({ STUDIO_LLM_PROVIDER: "openai", STUDIO_LLM_URL: `${url}/v1`, STUDIO_LLM_MODEL: "m", ...extra });

    it("a body cut off mid-answer", async function () {
      const wire = await model([{ ...openai.content('{"slug":"x"}'), cut: 20 }]);
      const run = await runCli(["--json", SENTENCE], llm(wire.url));
      expect(run.code).to.equal(1);
      const { error } = JSON.parse(run.stdout);
      expect(error.stage).to.equal("specify");
      expect(error.code).to.equal("provider_interrupted");
      expect(error.message).to.include(`${wire.url}/v1/chat/completions`);
      expect(error.next).to.match(/log/);
    });

    it("a server that never answers, held to --llm-deadline (over STUDIO_LLM_DEADLINE_SECONDS) for the whole stage", async function () {
      const wire = await model([{ hang: true }]);
      const run = await runCli(
        ["--llm-deadline", "1", SENTENCE],
        llm(wire.url, { STUDIO_LLM_DEADLINE_SECONDS: "600" }),
      );
      expect(run.code).to.equal(1);
      expect(run.stderr).to.match(
        /\[studio\] specify: provider_timeout: .*within the stage's deadline of 1 s \(1 try\)/,
      );
      expect(run.stderr).to.match(/\[studio\] next: .*--llm-deadline/);
      expect(wire.requests).to.have.length(1);
    });

    it("a refused connection", async function () {
      const port = await freePort();
      const run = await runCli([SENTENCE], llm(`http://127.0.0.1:${port}`));
      expect(run.code).to.equal(1);
      expect(run.stderr).to.include(`connection refused by 127.0.0.1:${port}`);
      expect(run.stderr).to.match(/\[studio\] next: start the model server/);
    });

    it("a setting that is wrong, and a stack that is not there, under --json too", async function () {
      const settings = await runCli(["--json", SENTENCE], env({ STUDIO_LLM_PROVIDER: "openai" }));
      expect(settings.code).to.equal(1);
      expect(JSON.parse(settings.stdout).error).to.deep.include({ stage: "setup", code: "invalid_settings" });
      const stack = await runCli(["--json", SENTENCE], { ...env(), STACK_DIR: join(stackDir, "missing") });
      expect(JSON.parse(stack.stdout).error).to.deep.include({ stage: "setup", code: "no_stack" });
      expect(JSON.parse(stack.stdout).error.next).to.match(/npm start/);
    });
  });
});
