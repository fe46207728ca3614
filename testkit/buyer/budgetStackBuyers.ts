import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { defined } from "../../services/protocol/defined.ts";
import { serveLaggingLogsRpc } from "../chain/laggingLogsRpc.ts";
import type { BudgetStack } from "./budgetStack.ts";
import { startBudgetStack } from "./budgetStack.ts";
import type { ConnectedBuyer } from "./connectBuyer.ts";
import { callTool, connectInMemory } from "./connectBuyer.ts";

/**
 * A describe block's budget stack and buyer servers (call it in the block): the stack is started before its tests and
 * closed after them, with every server `open` connected; the servers' ledgers live in a temporary folder of the
 * block's own (`dataDir`), removed after.
 * @example const kit = budgetStackBuyers("buyer-tools"); const { client } = await kit.open(kit.stack.settings(key, kit.dataDir))
 */
export function budgetStackBuyers(prefix: string) {
  const dataDir = mkdtempSync(join(tmpdir(), `${prefix}-`));
  const servers: ConnectedBuyer[] = [];
  let stack: BudgetStack | undefined;
  before(async function () {
    stack = await startBudgetStack();
  });
  after(async function () {
    for (const server of servers) await server.close().catch(() => {});
    await stack?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });
  return {
    dataDir,
    get stack(): BudgetStack {
      return defined(stack, "the budget stack, started before the block's tests");
    },
    /** The buyer server of `env`, connected in memory (see connectInMemory), closed after the block. */
    async open(env: Record<string, string | undefined>, options?: Parameters<typeof connectInMemory>[1]) {
      return this.closeAfter(await connectInMemory(env, options));
    },
    /** Closes `connected` (a server connected otherwise, over stdio say) after the block. */
    closeAfter(connected: ConnectedBuyer): ConnectedBuyer {
      servers.push(connected);
      return connected;
    },
    /**
     * One paid call (`call_resource` to a resource of its own, by a new buyer) through a provider whose logs lag the
     * head by `lagBlocks` once the buyer's server has read its ledger: the debit, mined meanwhile, stays out of the
     * logs the buyer reads. The caller closes `lagging` (whose `lag` it may change).
     * @example const { lagging, client, paid } = await kit.payBehindLaggingLogs(1_000)
     */
    async payBehindLaggingLogs(lagBlocks: number, extra: Record<string, string> = {}) {
      const s = this.stack;
      const lagging = await serveLaggingLogsRpc(s.chain.connection.provider, { logs: 0 });
      try {
        const { resourceId } = await s.resource();
        const buyer = await s.buyer();
        const { client } = await this.open(s.settings(buyer.key, dataDir, { RPC_URL: lagging.url, ...extra }));
        await callTool(client, "list_payments");
        lagging.lag.logs = lagBlocks;
        const paid = await callTool(client, "call_resource", { resourceId, body: { n: 1 } });
        if (paid.isError) throw new Error(`the paid call failed: ${JSON.stringify(paid.data)}`);
        return { lagging, resourceId, buyer, client, paid };
      } catch (error) {
        await lagging.close();
        throw error;
      }
    },
  };
}
