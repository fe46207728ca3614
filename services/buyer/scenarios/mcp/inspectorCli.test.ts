import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { Ajv } from "ajv";
import { expect } from "chai";
import { privateKeyToAddress } from "viem/accounts";
import echoSpec from "../../../host/samples/echo.json" with { type: "json" };
import { resourceIdOf } from "../../../protocol/resourceId.ts";
import { DEMO_KEYS } from "../../src/demo/demoKeys.ts";
import { DEMO_NOTICE } from "../../src/mcp/toolResult.ts";

const run = promisify(execFile);
const root = new URL("../../../../", import.meta.url).pathname;
const inspector = join(root, "node_modules/.bin/mcp-inspector-cli");
const bin = join(root, "services/buyer/bin/service-buyer-mcp.ts");

/**
 * The buyer server driven by the official MCP Inspector CLI (`@modelcontextprotocol/inspector-cli`), as a user
 * tries it: `--cli node service-buyer-mcp.ts --method …`, nothing configured (demo mode) or only a scope. Each command
 * launches the server afresh; the demo is the same at every start, so the id one command finds is the one the next
 * one pays.
 */
describe("buyer MCP server through the MCP Inspector CLI", function () {
  this.timeout(300_000);
  // The Inspector CLI gives every request a fixed 60 s (the MCP SDK's default; it has no option for it), and each
  // command starts the server and its demo afresh: on a machine loaded by the other suites that start alone has
  // taken longer ("Request timed out", or tools/list answered before the demo's typed tools were there). A wrong
  // answer fails every try; a slow start gets two more.
  this.retries(2);
  const home = mkdtempSync(join(tmpdir(), "buyer-inspector-home-"));
  after(() => rmSync(home, { recursive: true, force: true }));

  /**
   * `mcp-inspector-cli --cli node <bin> …args` with only PATH and HOME, parsed from its JSON output. The CLI finds
   * its own package.json by a path relative to the working directory, so it runs from a folder whose parent has one.
   */
  async function inspect(...args: string[]): Promise<Record<string, unknown>> {
    return inspectWith([], ...args);
  }

  /** `inspect` with the server's environment set by `-e KEY=VALUE` options first. */
  async function inspectWith(env: string[], ...args: string[]): Promise<Record<string, unknown>> {
    const { stdout } = await run(
      inspector,
      [...env.flatMap((e) => ["-e", e]), "--cli", process.execPath, bin, ...args],
      {
        cwd: join(root, "services"),
        env: { PATH: process.env.PATH ?? "", HOME: home },
        maxBuffer: 16 * 1024 * 1024,
      },
    );
    return JSON.parse(stdout);
  }

  it("lists the tools with call_resource's body typed as an object, and pays echo with a typed body", async function () {
    const { tools } = (await inspect("--method", "tools/list")) as {
      tools: { name: string; inputSchema: { properties: Record<string, { type?: string }> } }[];
    };
    const callResource = tools.find((t) => t.name === "call_resource");
    expect(tools.map((t) => t.name)).to.include.members(["search_resources", "quote", "call_resource", "get_balance"]);
    // The Inspector parses a --tool-arg as JSON for a property typed object; untyped, it sent the text.
    expect(callResource?.inputSchema.properties.body?.type).to.equal("object");

    const search = (await inspect("--method", "tools/call", "--tool-name", "search_resources")) as {
      structuredContent: { resources: { slug: string; resourceId: string }[] };
    };
    const echo = search.structuredContent.resources.find((r) => r.slug === "echo")?.resourceId;
    expect(echo).to.match(/^0x[0-9a-f]{64}$/);

    const paid = (await inspect(
      "--method",
      "tools/call",
      "--tool-name",
      "call_resource",
      "--tool-arg",
      `resourceId=${echo}`,
      "--tool-arg",
      'body={"hello":"inspector"}',
    )) as { isError?: boolean; structuredContent: Record<string, unknown>; content: { text?: string }[] };
    expect(paid.isError ?? false, paid.content[0]?.text).to.equal(false);
    const answer = paid.structuredContent;
    expect(answer).to.include({ mode: "demo", notice: DEMO_NOTICE });
    expect(answer.body).to.deep.equal({ echo: { hello: "inspector" } });
    // The demo's facilitator settles committed: the answer is final before its debit is mined, and names it.
    expect(answer).to.include({ settlement: "committed" });
    expect(answer).not.to.have.property("transaction");
    const receipt = answer.receipt as { success: boolean; payTo: string; amount: string; settlementId: string };
    expect(receipt).to.include({ success: true, payTo: echo, status: "committed" });
    expect(receipt.settlementId).to.match(/^0x[0-9a-f]{64}$/);
    expect(BigInt(receipt.amount) > 0n, `amount ${receipt.amount}`).to.equal(true);
    expect((answer.amount as { base: string }).base).to.equal(receipt.amount);
  });

  it("a server scoped to echo by its id alone lists echo's typed tool (echo's own schemas) and its call answers structuredContent valid against its outputSchema", async function () {
    const echo = resourceIdOf(privateKeyToAddress(DEMO_KEYS.creator), "echo").toLowerCase();
    const scoped = [`SERVICE_RESOURCE_IDS=${echo}`];
    const { tools } = (await inspectWith(scoped, "--method", "tools/list")) as {
      tools: { name: string; inputSchema: unknown; outputSchema?: Record<string, unknown> }[];
    };
    const typed = tools.find((t) => t.name === "echo");
    expect(typed?.inputSchema, JSON.stringify(tools.map((t) => t.name))).to.deep.equal(echoSpec.requestSchema);
    expect(typed?.outputSchema).to.deep.equal(echoSpec.responseSchema);

    const paid = (await inspectWith(
      scoped,
      "--method",
      "tools/call",
      "--tool-name",
      "echo",
      "--tool-arg",
      "hello=inspector",
    )) as {
      isError?: boolean;
      structuredContent?: unknown;
      content: { text?: string }[];
      _meta?: { mode?: string; settlement?: string; receipt?: { payTo?: string; settlementId?: string } };
    };
    expect(paid.isError ?? false, paid.content[0]?.text).to.equal(false);
    expect(paid.structuredContent).to.deep.equal({ echo: { hello: "inspector" } });
    const validate = new Ajv({ strict: false }).compile(typed?.outputSchema ?? {});
    expect(validate(paid.structuredContent), JSON.stringify(validate.errors)).to.equal(true);
    expect(paid._meta?.mode).to.equal("demo");
    expect(paid._meta?.settlement).to.equal("committed");
    expect(paid._meta?.receipt?.settlementId).to.match(/^0x[0-9a-f]{64}$/);
    expect(paid._meta?.receipt?.payTo).to.equal(echo);
  });
});
