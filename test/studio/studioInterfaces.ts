import { execFile } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import type { Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { expect } from "chai";
import { pino } from "pino";
import type { Hex, PublicClient } from "viem";
import { createPublicClient, http } from "viem";
import type { LocalAccount } from "viem/accounts";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { listen } from "../../services/http/listen.ts";
import { abiOf } from "../../services/protocol/artifacts.ts";
import { serviceChain } from "../../services/protocol/chain.ts";
import { DEV_ROLE, devKey } from "../../services/stack/devAccounts.ts";
import type { StackFile } from "../../services/stack/stackFile.ts";
import { catalogWriter } from "../../services/studio/catalog/catalogWriter.ts";
import { createStudioApp } from "../../services/studio/server/createStudioApp.ts";
import { sleep } from "../../testkit/sleep.ts";
import { sharedStack } from "../../testkit/stack/sharedStack.ts";

const run = promisify(execFile);
const root = new URL("../..", import.meta.url).pathname;

type Json = Record<string, any>;

/** Typed data as the draft shows it (numbers as decimal strings), made signable again: uint fields become bigints. */
function revive(typedData: Json) {
  const fields = typedData.types[typedData.primaryType] as { name: string; type: string }[];
  const message = Object.fromEntries(
    Object.entries(typedData.message as Json).map(([key, value]) => [
      key,
      fields.find((f) => f.name === key)?.type.startsWith("uint") ? BigInt(value as string) : value,
    ]),
  );
  return { ...typedData, message } as Parameters<LocalAccount["signTypedData"]>[0];
}

async function signDraft(creator: LocalAccount, toSign: Json) {
  const tx = toSign.deactivation as Json;
  return {
    registration: await creator.signTypedData(revive(toSign.registration)),
    bond: await creator.signTypedData(revive(toSign.bond)),
    deactivation: await creator.signTransaction({
      type: "eip1559",
      chainId: tx.chainId,
      to: tx.to,
      data: tx.data,
      nonce: tx.nonce,
      gas: BigInt(tx.gas),
      maxFeePerGas: BigInt(tx.maxFeePerGas),
      maxPriorityFeePerGas: BigInt(tx.maxPriorityFeePerGas),
    }),
  };
}

describe("studio interfaces on the real stack: the CLI and the HTTP service started by npm start", function () {
  this.timeout(900_000);
  let stackDir: string;
  let stack: StackFile;
  const creator = privateKeyToAccount(devKey(DEV_ROLE.creator));

  const api = async (method: string, path: string, body?: unknown, token = stack.studioToken) => {
    const response = await fetch(`${stack.studioUrl}${path}`, {
      method,
      headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as Json };
  };
  const until = async (id: string, statuses: string[], base = stack.studioUrl, token = stack.studioToken) => {
    const deadline = Date.now() + 120_000;
    for (;;) {
      const response = await fetch(`${base}/drafts/${id}`, { headers: { authorization: `Bearer ${token}` } });
      const draft = (await response.json()) as Json;
      if (statuses.includes(draft.status)) return draft;
      if (Date.now() > deadline) throw new Error(`draft ${id} stayed ${draft.status}`);
      await sleep(200);
    }
  };
  const cli = async (args: string[]) => {
    try {
      const { stdout } = await run(process.execPath, ["services/studio/cli.ts", ...args], {
        cwd: root,
        env: { ...process.env, STACK_DIR: stackDir },
      });
      return { code: 0, stdout };
    } catch (error) {
      const e = error as { code: number; stdout: string; stderr: string };
      return { code: e.code, stdout: e.stdout, stderr: e.stderr };
    }
  };
  const listedIds = async () =>
    ((await (await fetch(`${stack.marketplaceUrl}/resources`)).json()) as { resourceId: string; active: boolean }[])
      .filter((r) => r.active)
      .map((r) => r.resourceId);

  before(async function () {
    ({ stack, stackDir } = await sharedStack());
  });

  describe("npm run studio", function () {
    it("lists an endpoint from one sentence and prints its URLs, ids and transactions (--yes --json)", async function () {
      const { code, stdout } = await cli(["--yes", "--json", "Return the SHA-256 hex digest of a text"]);
      expect(code).to.equal(0);
      const out = JSON.parse(stdout) as Json;
      expect(out.published).to.equal(true);
      expect(out.resourceUrl).to.match(/\/r\/sha-256-digest-[0-9a-f]{6}$/);
      expect(out.cardUrl).to.equal(`${stack.marketplaceUrl}/${out.resourceId}/.well-known/agent-card.json`);
      expect(out.agentId).to.match(/^\d+$/);
      expect(out.transactions.register).to.match(/^0x[0-9a-f]{64}$/);
      expect(out.transactions.selfTestDebit).to.match(/^0x[0-9a-f]{64}$/);
      expect(out.stages.map((s: Json) => s.stage)).to.deep.equal([
        "specify",
        "verify",
        "deploy",
        "publish",
        "self-test",
      ]);
      expect(await listedIds()).to.include(out.resourceId);
    });

    it("--dry-run writes a bundle without deploying; --from deploys the reviewed bundle; a line per stage with its time", async function () {
      const out = mkdtempSync(join(tmpdir(), "studio-bundle-"));
      const before = await listedIds();
      const dry = await cli(["--dry-run", "--out", out, "Convert temperatures to Fahrenheit"]);
      expect(dry.code).to.equal(0);
      for (const stage of ["specify", "verify"])
        expect(dry.stdout).to.match(new RegExp(`\\[studio\\] ${stage} +[0-9.]+ ms  ok`));
      expect(dry.stdout).to.not.match(/\[studio\] deploy/);
      expect(readdirSync(out).sort()).to.deep.equal([
        "card.json",
        "contract.json",
        "handler.mjs",
        "report.json",
        "sentence.txt",
      ]);
      expect(await listedIds()).to.deep.equal(before);
      const unconfirmed = await cli(["--from", out]);
      expect(unconfirmed.code, "without a terminal and without --yes nothing is published").to.equal(3);
      expect(unconfirmed.stdout).to.match(/written by +catalog recipe \S+/);
      expect(await listedIds()).to.deep.equal(before);
      const from = await cli(["--yes", "--from", out]);
      expect(from.code).to.equal(0);
      for (const stage of ["verify", "deploy", "publish", "self-test"])
        expect(from.stdout).to.match(new RegExp(`\\[studio\\] ${stage} +[0-9.]+ ms  ok`));
      const resourceId = /resource id +(0x[0-9a-f]{64})/.exec(from.stdout)?.[1];
      expect(from.stdout).to.match(/agent id +\d+/);
      expect(await listedIds()).to.include(resourceId);
      rmSync(out, { recursive: true, force: true });
    });

    it("exits 1 with the reason for a sentence it refuses", async function () {
      const { code, stderr } = await cli(["Fetch the current weather for a city"]);
      expect(code).to.equal(1);
      expect(stderr).to.match(/specify: forbidden_network: the sandbox has no outbound network/);
      expect(stderr).to.match(/\[studio\] next: describe an endpoint that computes its answer from the request alone/);
    });
  });

  describe("the HTTP service", function () {
    it("is in stack.json, answers /health, and refuses requests without its bearer token (401)", async function () {
      expect(stack.studioUrl).to.match(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect((await fetch(`${stack.studioUrl}/health`)).status).to.equal(200);
      const refused = await api(
        "POST",
        "/drafts",
        { sentence: "Encode text as base64", creator: creator.address },
        "wrong-token-0123456789",
      );
      expect(refused.status).to.equal(401);
      expect(refused.body.error.code).to.equal("unauthorized");
      expect((await api("GET", "/drafts/nope", undefined, "")).status).to.equal(401);
    });

    it("answers clear 4xx for bad input", async function () {
      expect((await api("POST", "/drafts", { sentence: "Encode text as base64" })).status).to.equal(400);
      expect((await api("POST", "/drafts", { sentence: "x", creator: creator.address, extra: 1 })).status).to.equal(
        400,
      );
      expect((await api("GET", "/drafts/00000000-0000-0000-0000-000000000000")).status).to.equal(404);
    });

    it("drafts, streams progress (SSE), shows what to sign, publishes with the creator's signatures, and lists", async function () {
      const created = await api("POST", "/drafts", {
        sentence: "Count word frequencies in a text",
        creator: creator.address,
      });
      expect(created.status).to.equal(202);
      const id = created.body.id as string;

      const events = await fetch(`${stack.studioUrl}/drafts/${id}/events`, {
        headers: { authorization: `Bearer ${stack.studioToken}` },
      });
      expect(events.headers.get("content-type")).to.match(/^text\/event-stream/);
      const reader = events.body!.getReader();
      let text = "";
      while (!text.includes('"status":"verified"')) {
        const { value, done } = await reader.read();
        if (done) break;
        text += new TextDecoder().decode(value);
      }
      await reader.cancel();
      expect(text).to.match(/event: progress\ndata: \{"stage":"specify","status":"passed"/);
      expect(text).to.match(/event: progress\ndata: \{"stage":"verify","status":"passed"/);

      const draft = await until(id, ["verified"]);
      expect(draft.checks.length).to.be.greaterThan(5);
      expect(draft.checks.every((c: Json) => c.passed)).to.equal(true);
      expect(draft.bundle.source).to.match(/export default/);
      expect(draft.summary).to.deep.include({ name: draft.bundle.contract.name, price: draft.bundle.contract.price });
      expect(draft.summary.writtenBy).to.deep.include({ provider: "catalog" });
      expect(Date.parse(draft.expiresAt)).to.be.greaterThan(Date.now());
      expect(draft.toSign.registration.primaryType).to.equal("RegisterResource");
      expect(draft.toSign.bond.primaryType).to.equal("ReceiveWithAuthorization");

      const signatures = await signDraft(creator, draft.toSign);
      const stranger = await signDraft(privateKeyToAccount(generatePrivateKey()), draft.toSign);
      const forged = await api("POST", `/drafts/${id}/publish`, {
        signatures: { ...signatures, deactivation: stranger.deactivation },
      });
      expect(forged.status).to.equal(400);
      expect(forged.body.error.message).to.match(/not signed by the creator/);

      const published = await api("POST", `/drafts/${id}/publish`, { signatures });
      expect(published.status).to.equal(202);
      expect((await api("POST", `/drafts/${id}/publish`, { signatures })).status).to.equal(409);
      const listed = await until(id, ["listed", "failed"]);
      expect(listed.error).to.equal(undefined);
      expect(listed.status).to.equal("listed");
      expect(listed.result.agentId).to.match(/^\d+$/);
      expect(await listedIds()).to.include(listed.result.resourceId);
    });

    it("shows a refused sentence as failed at specify, with the reason", async function () {
      const created = await api("POST", "/drafts", {
        sentence: "Read a file from the server disk",
        creator: creator.address,
      });
      expect(created.status).to.equal(202);
      const draft = await until(created.body.id, ["failed"]);
      expect(draft.error.stage).to.equal("specify");
      expect(draft.error.code).to.equal("forbidden_files");
      expect((await api("POST", `/drafts/${created.body.id}/publish`, { signatures: {} })).status).to.equal(400);
    });

    it("sends the creator's signed deactivation when the self-test fails: nothing stays active or deployed", async function () {
      const client = createPublicClient({
        chain: serviceChain(stack.rpcUrl),
        transport: http(stack.rpcUrl),
      }) as PublicClient;
      const app = createStudioApp({
        target: stack,
        writer: catalogWriter(),
        buyer: privateKeyToAccount(generatePrivateKey()),
        client,
        token: "local-test-token-0123456789",
        logger: pino({ level: "silent" }),
      });
      const server: Server = await listen(app, 0, "127.0.0.1");
      const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
      const token = "local-test-token-0123456789";
      const post = async (path: string, body: unknown) =>
        fetch(`${base}${path}`, {
          method: "POST",
          headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
          body: JSON.stringify(body),
        });
      try {
        const { id } = (await (
          await post("/drafts", { sentence: "Encode text as base64", creator: creator.address })
        ).json()) as Json;
        const draft = await until(id, ["verified"], base, token);
        expect(
          (await post(`/drafts/${id}/publish`, { signatures: await signDraft(creator, draft.toSign) })).status,
        ).to.equal(202);
        const failed = await until(id, ["failed", "listed"], base, token);
        expect(failed.error.stage).to.equal("self-test");
        expect(failed.error.details.notUndone).to.deep.equal([]);
        expect(failed.error.details.undone).to.have.length(2);
        const [, active] = await client.readContract({
          address: stack.contracts.registry,
          abi: abiOf("ResourceRegistry"),
          functionName: "paymentTarget",
          args: [draft.resourceId as Hex],
        });
        expect(active).to.equal(false);
        expect((await fetch(`${stack.hostUrl}/r/${draft.bundle.contract.slug}/health`)).status).to.equal(404);
      } finally {
        server.close();
      }
    });
  });
});
