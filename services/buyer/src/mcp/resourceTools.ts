import type { RegisteredTool } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { Hex } from "viem";
import { z } from "zod";
import { schemaMessage } from "../../../gate/schemaMessage.ts";
import { isChainUnavailable } from "../../../protocol/chain.ts";
import { normaliseSlug } from "../plugins/normaliseSlug.ts";
import { readIndex } from "../plugins/readIndex.ts";
import { BuyerError } from "../sdk/buyerError.ts";
import { formatAmount } from "../sdk/formatAmount.ts";
import { readRegistration } from "../sdk/readRegistration.ts";
import type { ResourceSchemas } from "../sdk/readResourceSchemas.ts";
import { readResourceSchemas } from "../sdk/readResourceSchemas.ts";
import type { BuyerEnvironment } from "./buyerEnvironment.ts";
import type { OwnToolSchemas } from "./listOwnToolSchemas.ts";
import { payResource } from "./payResource.ts";
import { sanitiseSchemaAnnotations } from "./sanitiseSchemaAnnotations.ts";
import { DEMO_NOTICE, toolError } from "./toolResult.ts";
import type { ToolContext } from "./tools/toolContext.ts";

/** Why a resource has a tool: the server's scope, the `SERVICE_TOOL_RESOURCE_IDS` setting, or an agent's add_tools. */
export type ResourceToolOrigin = "scope" | "setting" | "agent";

/** What add_tools did for one resource: the tool it now has, or why it has none. */
export type AddToolOutcome =
  | { resourceId: Hex; tool: string; error?: undefined }
  | { resourceId: Hex; tool?: undefined; error: { code: string; message: string } };

/** The typed tools of a buyer server, one per resource, following the chain and the index. */
export type ResourceTools = {
  /** Reads each resource's schemas (`readResourceSchemas`) and gives it a typed tool; announced by list_changed. */
  add(ids: Hex[], origin: ResourceToolOrigin): Promise<AddToolOutcome[]>;
  /** Runs before every `tools/list`: waits (bounded) for the tools to follow the chain and the index. */
  beforeList(): Promise<void>;
  /** The schemas a resource tool is listed with (`listOwnToolSchemas`). */
  schemasOf(name: string): OwnToolSchemas | undefined;
};

/** Most resource tools an agent may add with add_tools (the scope and the setting are the user's own). */
export const MAX_AGENT_TOOLS = 32;
/** How long the first `tools/list` waits for the tools of the scope and the setting to be read. */
const FIRST_LIST_WAIT_MS = 45_000;
/** How long any later `tools/list` waits for the chain and the index; what changes later is announced. */
const LIST_WAIT_MS = 5_000;
/** How often the tools follow the chain and the index while a client is connected. */
const FOLLOW_INTERVAL_MS = 60_000;

type Entry = {
  resourceId: Hex;
  origin: ResourceToolOrigin;
  name?: string;
  registered?: RegisteredTool;
  /** What the tool was built from: the schemas, read under this card hash. */
  schemas?: ResourceSchemas;
  cardHash?: Hex;
  listed?: OwnToolSchemas;
  /** The last reason it has no tool, logged once. */
  problem?: string;
};

const looseObject = z.looseObject({});

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === "object" && !Array.isArray(value);

/**
 * Failures that say nothing lasting about the resource (the network, the chain, a service, a gate answering 503
 * rather than its quote, the server's own settings): the tool stays as it was until the next pass.
 */
function isTransient(error: unknown): boolean {
  if (isChainUnavailable(error)) return true;
  return (
    error instanceof BuyerError &&
    (error.code.endsWith("_unavailable") || error.code === "bad_setting" || error.code === "no_quote")
  );
}

async function within(work: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([work, new Promise((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}

/** The description of a resource's tool: what it does, its price and cap in USDC from the pinned terms, how it pays. */
function describeTool(slug: string, schemas: ResourceSchemas): string {
  const { pricing, terms } = schemas;
  const usdc = (amount: bigint | string) => formatAmount(amount).usdc;
  const multiplier = pricing.computeMultiplier === 1 ? "" : `, times ${pricing.computeMultiplier}`;
  const answer = schemas.response
    ? "its answer, typed by this tool's output schema (structuredContent)"
    : "its answer as JSON text";
  return `Pays for one call to the paid endpoint "${slug}" (resource ${terms.resourceId}) and returns ${answer}; the receipt, the amount paid, the settlement (committed or confirmed) and the transaction once known are in _meta. The arguments are the endpoint's own request fields (its request schema, from its 402 quote). Price: ${usdc(pricing.base)} plus ${usdc(pricing.perKB)} per KB of response${multiplier}, never more than the cap of ${usdc(terms.cap)} per call (the registered max, re-checked on chain before paying). Spends money from the buyer's escrow under the spend policy, as call_resource does: SPEND_MAX_PER_CALL and the budgets count the cap, and above SPEND_CONFIRM_ABOVE the user is asked to confirm first. An error payment_unknown means the payment was sent and may have been debited: do not call again, call recover_result with its idemKey.`;
}

/**
 * The typed tools of a buyer server: one per resource of the scope (`SERVICE_RESOURCE_IDS`) or of
 * `SERVICE_TOOL_RESOURCE_IDS`, read at start, and one per resource an agent adds (`add_tools`). A tool is named
 * after the resource's on-chain slug (`normaliseSlug`; a resource id suffix when the name is taken), takes the
 * resource's request schema as its input and declares its response schema (when it describes an object) as its output
 * schema, both read with `readResourceSchemas` (pinned as payment terms are, checked, annotations sanitised); it pays
 * through `payResource`, as call_resource does, and answers structuredContent with the receipt, amount and
 * transaction in `_meta`. Before every `tools/list` (and every minute while connected) the tools follow the chain and
 * the index: a new card hash re-reads the schemas, an inactive resource or one the marketplace index no longer lists
 * loses its tool (an agent's is forgotten), and every change is announced with `notifications/tools/list_changed`.
 * @example const tools = createResourceTools(context); await tools.add([resourceId], "agent")
 */
export function createResourceTools(tool: ToolContext): ResourceTools {
  const entries = new Map<Hex, Entry>();
  let syncing: Promise<void> | undefined;
  /** The first read of the scope's (or the setting's) tools, which the first `tools/list` waits for. */
  const first: { load?: Promise<void> } = {};
  let follower: NodeJS.Timeout | undefined;

  const note = (entry: Entry, problem: string) => {
    if (entry.problem === problem) return;
    entry.problem = problem;
    tool.log(`service-buyer: no typed tool for resource ${entry.resourceId}: ${problem}`);
  };

  const drop = (entry: Entry, reason: string) => {
    entry.registered?.remove();
    entry.registered = undefined;
    entry.schemas = undefined;
    entry.cardHash = undefined;
    entry.listed = undefined;
    if (entry.origin === "agent") entries.delete(entry.resourceId);
    note(entry, reason);
  };

  async function call(entry: Entry, args: Record<string, unknown>, requestId: string | number) {
    return tool.run(async (env) => {
      const schemas = entry.schemas;
      if (!schemas || entries.get(entry.resourceId) !== entry)
        throw new BuyerError("unknown_tool", `the tool of resource ${entry.resourceId} is gone: list the tools again`);
      if (!schemas.request.validate(args))
        throw new BuyerError(
          "invalid_body",
          `the arguments do not match the request schema of resource ${entry.resourceId}: ${schemaMessage(schemas.request.validate)}; nothing was signed or paid`,
        );
      const { paid, settlement, transaction } = await payResource(tool, env, {
        resourceId: entry.resourceId,
        body: args,
        relatedRequestId: requestId,
      });
      const amount = formatAmount(paid.receipt.amount);
      const _meta = {
        mode: env.mode,
        ...(env.mode === "demo" ? { notice: DEMO_NOTICE } : {}),
        resourceId: entry.resourceId,
        amount,
        cap: formatAmount(paid.terms.cap),
        settlement,
        ...(transaction ? { transaction } : {}),
        idemKey: paid.idemKey,
        receipt: paid.receipt,
      };
      const debitNote = transaction ? `transaction ${transaction}` : "debit committed, on chain by its validBefore";
      const paidLine = `Paid ${amount.usdc} (${amount.base} base units, cap ${formatAmount.text(paid.terms.cap)}) to resource ${entry.resourceId}; ${debitNote}; idemKey ${paid.idemKey}.${env.mode === "demo" ? ` ${DEMO_NOTICE}` : ""}`;
      const text = [
        { type: "text" as const, text: JSON.stringify(paid.body) },
        { type: "text" as const, text: paidLine },
      ];
      if (schemas.response && !schemas.response.validate(paid.body)) {
        const error = new BuyerError(
          "invalid_response",
          `the call was paid (${amount.usdc}, ${debitNote}), but its answer does not match the response schema the resource publishes (${schemaMessage(schemas.response.validate)}): it is in the text content, unvalidated`,
        );
        const failed = toolError(env.mode, error);
        return { ...failed, content: [...failed.content, ...text], _meta } satisfies CallToolResult;
      }
      return {
        content: text,
        ...(isPlainObject(paid.body) ? { structuredContent: paid.body } : {}),
        _meta,
      } satisfies CallToolResult;
    });
  }

  /** Registers (or re-registers, with new schemas) the tool of `entry`, under its name or the first free one. */
  function install(entry: Entry, schemas: ResourceSchemas) {
    const slug = normaliseSlug(schemas.pinned.registration.slug);
    const config = {
      title: `Pay for and call "${slug}" (spends money)`,
      description: describeTool(slug, schemas),
      inputSchema: looseObject,
      ...(schemas.response ? { outputSchema: looseObject } : {}),
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
    };
    entry.registered?.remove();
    entry.registered = undefined;
    const id = entry.resourceId.slice(2);
    const names = entry.name
      ? [entry.name]
      : [slug, ...Array.from({ length: 57 }, (_, i) => `${slug}-${id.slice(0, 8 + i)}`)];
    for (const name of names) {
      try {
        entry.registered = tool.server.registerTool(name, config, (args, extra) =>
          call(entry, args as Record<string, unknown>, extra.requestId),
        );
        entry.name = name;
        break;
      } catch {}
    }
    if (!entry.registered) throw new BuyerError("name_taken", `no free tool name for ${slug}`);
    entry.schemas = schemas;
    entry.cardHash = schemas.pinned.registration.cardHash;
    entry.listed = {
      inputSchema: sanitiseSchemaAnnotations(schemas.request.schema) as OwnToolSchemas["inputSchema"],
      ...(schemas.response
        ? { outputSchema: sanitiseSchemaAnnotations(schemas.response.schema) as OwnToolSchemas["outputSchema"] }
        : {}),
    };
    entry.problem = undefined;
  }

  /** Brings one resource's tool up to date: gone when inactive or out of the index, rebuilt when its card changed. */
  async function follow(entry: Entry, env: BuyerEnvironment, indexed: Set<string> | undefined) {
    try {
      const chain = tool.chainOf(env);
      const registration = await readRegistration(chain, entry.resourceId);
      if (!registration.active) return drop(entry, "the resource is inactive on chain");
      if (indexed && !indexed.has(entry.resourceId)) return drop(entry, "the marketplace index no longer lists it");
      if (entry.registered && entry.cardHash === registration.cardHash) return;
      install(entry, await readResourceSchemas(chain, entry.resourceId));
    } catch (error) {
      const message = (error as Error).message.split("\n")[0] ?? "";
      if (isTransient(error)) note(entry, message);
      else drop(entry, message);
      throw error;
    }
  }

  /** The active resource ids of the marketplace index, or undefined when there is none to ask or it cannot be read. */
  async function indexedIds(env: BuyerEnvironment): Promise<Set<string> | undefined> {
    if (!env.marketplaceUrl || entries.size === 0) return undefined;
    try {
      const { records } = await readIndex(env.marketplaceUrl);
      return new Set(records.map((record) => record.resourceId.toLowerCase()));
    } catch {
      return undefined;
    }
  }

  /** One pass over every resource tool, never two at once. */
  function sync(): Promise<void> {
    syncing ??= (async () => {
      if (entries.size === 0) return;
      const env = await tool.source.get();
      const indexed = await indexedIds(env);
      await Promise.all([...entries.values()].map((entry) => follow(entry, env, indexed).catch(() => {})));
    })()
      .catch((error: Error) => {
        for (const entry of entries.values()) note(entry, error.message.split("\n")[0] ?? "");
      })
      .finally(() => {
        syncing = undefined;
      });
    return syncing;
  }

  async function add(ids: Hex[], origin: ResourceToolOrigin): Promise<AddToolOutcome[]> {
    const env = await tool.source.get();
    const outcomes: AddToolOutcome[] = [];
    for (const resourceId of ids) {
      try {
        let entry = entries.get(resourceId);
        if (!entry) {
          const agents = [...entries.values()].filter((e) => e.origin === "agent").length;
          if (origin === "agent" && agents >= MAX_AGENT_TOOLS)
            throw new BuyerError("too_many_tools", `an agent may add at most ${MAX_AGENT_TOOLS} resource tools`);
          entry = { resourceId, origin };
          entries.set(resourceId, entry);
        }
        if (!entry.registered) {
          const registration = await readRegistration(tool.chainOf(env), resourceId);
          if (!registration.active)
            throw new BuyerError("inactive_resource", `resource ${resourceId} is inactive on chain`);
          install(entry, await readResourceSchemas(tool.chainOf(env), resourceId));
        }
        outcomes.push({ resourceId, tool: entry.name ?? "" });
      } catch (error) {
        const entry = entries.get(resourceId);
        if (entry?.origin === "agent" && !entry.registered) entries.delete(resourceId);
        const code =
          error instanceof BuyerError ? error.code : isChainUnavailable(error) ? "rpc_unavailable" : "internal_error";
        outcomes.push({ resourceId, error: { code, message: (error as Error).message.split("\n")[0] ?? "" } });
      }
    }
    return outcomes;
  }

  const preset = tool.config.scope ?? tool.config.toolResources;
  if (preset?.length) {
    for (const resourceId of preset)
      entries.set(resourceId, { resourceId, origin: tool.config.scope ? "scope" : "setting" });
    first.load = sync();
  }

  return {
    add,
    async beforeList() {
      follower ??= setInterval(() => {
        if (!tool.server.isConnected()) {
          clearInterval(follower);
          return;
        }
        void sync();
      }, FOLLOW_INTERVAL_MS).unref();
      const { load } = first;
      if (load !== undefined) {
        first.load = undefined;
        await within(load, FIRST_LIST_WAIT_MS);
        return;
      }
      await within(sync(), LIST_WAIT_MS);
    },
    schemasOf(name) {
      for (const entry of entries.values()) if (entry.name === name && entry.registered) return entry.listed;
      return undefined;
    },
  };
}
