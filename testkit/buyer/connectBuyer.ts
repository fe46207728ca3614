import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { ElicitRequest, ElicitResult } from "@modelcontextprotocol/sdk/types.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { liveEnvironment } from "../../services/buyer/src/mcp/buyerEnvironment.ts";
import { createBuyerServer } from "../../services/buyer/src/mcp/createBuyerServer.ts";
import { demoEnvironment } from "../../services/buyer/src/mcp/demoEnvironment.ts";
import { loadBuyerConfig } from "../../services/buyer/src/mcp/loadBuyerConfig.ts";

/** A connected MCP client and how to close both ends. */
export type ConnectedBuyer = { client: Client; close(): Promise<void>; stderr: () => string };

/** What a tool answered: its structured content, or its `{ error: { code, message } }` body. */
export type ToolOutcome = {
  isError: boolean;
  data: Record<string, unknown>;
  /** The answer's `_meta` (a resource tool's payment: receipt, amount, transaction). */
  meta?: Record<string, unknown>;
  error?: {
    code: string;
    message: string;
    rule?: string;
    remaining?: string;
    idemKey?: string;
    validBefore?: string;
    next?: string;
  };
};

/**
 * The buyer server built from `env` and the official client connected to it in memory; what the server logs is
 * kept for `stderr()`, not printed. With `elicit`, the client declares the elicitation capability and answers each
 * `elicitation/create` with it (as a user would); without, it declares none.
 * @example const { client, close } = await connectInMemory({ RPC_URL, ... }, { elicit: async () => ({ action: "decline" }) })
 */
export async function connectInMemory(
  env: Record<string, string | undefined>,
  options: { elicit?: (request: ElicitRequest["params"]) => Promise<ElicitResult> } = {},
): Promise<ConnectedBuyer> {
  const config = loadBuyerConfig(env);
  let stderr = "";
  const log = (line: string) => {
    stderr += `${line}\n`;
  };
  const source = config.mode === "demo" ? demoEnvironment(config, log) : liveEnvironment(config);
  const server = createBuyerServer(config, source, log);
  const [serverSide, clientSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client(
    { name: "buyer-test", version: "1.0.0" },
    { capabilities: options.elicit ? { elicitation: {} } : {} },
  );
  const { elicit } = options;
  if (elicit) client.setRequestHandler(ElicitRequestSchema, (request) => elicit(request.params));
  await client.connect(clientSide);
  return {
    client,
    stderr: () => stderr,
    async close() {
      await client.close();
      await server.close();
      await source.close();
    },
  };
}

/**
 * Launches `command args` as an MCP client does (a child process speaking JSON-RPC on stdio) and connects to it.
 * Only `env` (plus PATH) reaches the child.
 * @example const { client } = await connectStdio(process.execPath, ["services/buyer/bin/service-buyer-mcp.ts"], env)
 */
export async function connectStdio(
  command: string,
  args: string[],
  env: Record<string, string>,
  cwd?: string,
): Promise<ConnectedBuyer> {
  const transport = new StdioClientTransport({
    command,
    args,
    env: { PATH: process.env.PATH ?? "", ...env },
    cwd,
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const client = new Client({ name: "buyer-test", version: "1.0.0" });
  await client.connect(transport);
  return { client, stderr: () => stderr, close: () => client.close() };
}

/**
 * How long a test waits for one tool call. The first call in demo mode starts the whole demo system, which takes
 * longer than the MCP client's 60 s default on a loaded two-core machine.
 */
export const TOOL_TIMEOUT_MS = 180_000;

/**
 * Calls a tool and returns its structured answer or its error body, and its `_meta`.
 * @example const { data } = await callTool(client, "get_card", { resourceId })
 */
export async function callTool(client: Client, name: string, args: Record<string, unknown> = {}): Promise<ToolOutcome> {
  const result = (await client.callTool({ name, arguments: args }, undefined, { timeout: TOOL_TIMEOUT_MS })) as {
    isError?: boolean;
    structuredContent?: Record<string, unknown>;
    content: { type: string; text?: string }[];
    _meta?: Record<string, unknown>;
  };
  const text = result.content.find((c) => c.type === "text")?.text ?? "";
  if (result.isError) {
    let body: { error?: ToolOutcome["error"] } & Record<string, unknown> = {};
    try {
      body = JSON.parse(text);
    } catch {
      body = { error: { code: "mcp_error", message: text } };
    }
    return { isError: true, data: body, error: body.error, meta: result._meta };
  }
  return { isError: false, data: result.structuredContent ?? {}, meta: result._meta };
}

/**
 * The tools every buyer MCP server lists (`add_tools` besides, unless it is scoped to its resources), sorted: what the
 * tests of the server, its published package and the generated plugins expect to see.
 */
export const BUYER_TOOLS = [
  "call_resource",
  "deposit",
  "get_balance",
  "get_card",
  "list_payments",
  "quote",
  "recover_result",
  "request_withdrawal",
  "search_resources",
  "set_spend_limit",
  "withdraw",
];
