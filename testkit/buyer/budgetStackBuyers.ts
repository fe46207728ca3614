import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { defined } from "../../services/protocol/defined.ts";
import type { BudgetStack } from "./budgetStack.ts";
import { startBudgetStack } from "./budgetStack.ts";
import type { ConnectedBuyer } from "./connectBuyer.ts";
import { connectInMemory } from "./connectBuyer.ts";

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
  };
}
