import type { Address, Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import type { BuyerChain } from "../../services/buyer/src/sdk/buyerChain.ts";
import { buyerChain } from "../../services/buyer/src/sdk/buyerChain.ts";
import type { HandlerCall } from "../../services/gate/handler.ts";
import { debitsOnChain } from "../chain/debitsOnChain.ts";
import { ROLE } from "../chain/localChain.ts";
import type { GateStack, TestResourceOptions } from "../gate/gateStack.ts";
import { startGateStack, startTestResource } from "../gate/gateStack.ts";
import type { RelayMode } from "./startCreatorRelay.ts";
import { startCreatorRelay } from "./startCreatorRelay.ts";

/** A resource whose every small call is priced at exactly its cap, so a budget of N caps is a budget of N calls. */
export const CALL_PRICE = 1_200n;

/** The echo handler, run in this process (no workerd needed for what the buyer sees). */
const echo = async ({ body }: HandlerCall) => ({
  status: 200,
  contentType: "application/json",
  body: Buffer.from(JSON.stringify({ echo: body })),
});

/**
 * A real money path for the buyer's budget tests: the local chain, the facilitator and gates in front of an echo
 * handler priced `CALL_PRICE` per call (cap = price), each optionally behind a creator's relay; fresh buyers funded
 * in escrow; the buyer MCP server's settings for one; and the chain's debits of a buyer. `facilitatorEnv` sets the
 * facilitator's settings (confirmed settlement and no holding unless it says otherwise).
 * @example const s = await startBudgetStack(); const r = await s.resource("echo-1", "rewrite-settled-at")
 */
export async function startBudgetStack(options: { facilitatorEnv?: Record<string, string> } = {}) {
  const stack: GateStack = await startGateStack({ facilitatorEnv: options.facilitatorEnv });
  const { chain } = stack;
  const closers: (() => Promise<void>)[] = [];
  let resources = 0;
  /** A gate for a new resource (or a new deployment of `terms.resourceId`) behind a relay in `mode`. */
  async function deploy(mode: RelayMode, terms: Omit<TestResourceOptions, "slug" | "handler" | "source">) {
    const gate = await startTestResource(stack, {
      slug: `budget-${++resources}`,
      cap: CALL_PRICE,
      base: 1_000n,
      perKB: 200n,
      handler: echo,
      ...terms,
    });
    closers.push(() => gate.close());
    const relay = await startCreatorRelay(chain, { resourceId: gate.resourceId, gateUrl: gate.url, mode });
    closers.push(() => relay.close());
    return { resourceId: gate.resourceId, gate, relay };
  }
  return {
    stack,
    chain,
    /**
     * A gate of its own behind a creator's relay in `mode` (registered as the resource's card); `terms` overrides the
     * price (cap, base, perKB, multiplier) and the request schema.
     */
    resource(mode: RelayMode = "forward", terms: Omit<TestResourceOptions, "slug" | "handler" | "source"> = {}) {
      return deploy(mode, terms);
    },
    /**
     * A new deployment of a registered resource (its prices unchanged, `terms` its new schemas): a gate of its own
     * behind a new relay, whose card the creator registers on chain, so the resource's card hash changes.
     */
    redeploy(
      resourceId: Hex,
      terms: Omit<TestResourceOptions, "slug" | "handler" | "source" | "resourceId" | "cap" | "base" | "perKB"> = {},
    ) {
      return deploy("forward", { ...terms, resourceId });
    },
    /** A fresh buyer key with `deposit` in escrow (it never needs gas: it only signs). */
    async buyer(deposit = 1_000_000n): Promise<{ key: Hex; address: Address }> {
      const key = generatePrivateKey();
      const address = privateKeyToAccount(key).address;
      const admin = chain.address(ROLE.admin);
      await chain.contracts.token.write.mint([admin, deposit]);
      await chain.contracts.token.write.approve([chain.addresses.escrow, deposit]);
      await chain.publicClient.waitForTransactionReceipt({
        hash: await chain.contracts.escrow.write.depositFor([address, deposit]),
      });
      return { key, address };
    },
    /**
     * The buyer MCP server's live settings for `key`, its ledgers in `dataDir`; every gate and relay here is on
     * 127.0.0.1, so they allow private addresses (`BUYER_ALLOW_PRIVATE_NETWORK=on`) unless `extra` says otherwise.
     */
    settings(key: Hex, dataDir: string, extra: Record<string, string> = {}): Record<string, string> {
      return {
        BUYER_PRIVATE_KEY: key,
        RPC_URL: chain.rpcUrl,
        ESCROW_ADDRESS: chain.addresses.escrow,
        MARKETPLACE_URL: "http://127.0.0.1:9",
        FACILITATOR_URL: stack.facilitator.url,
        SERVICE_BUYER_DATA_DIR: dataDir,
        BUYER_ALLOW_PRIVATE_NETWORK: "on",
        ...extra,
      };
    },
    /** The SDK's view of this chain, allowed to reach this stack's gates and relays on 127.0.0.1. */
    buyerChain(): BuyerChain {
      return buyerChain({ rpcUrl: chain.rpcUrl, escrow: chain.addresses.escrow, allowPrivateAddresses: true });
    },
    /** Every amount the chain debited `buyer`. */
    async debits(buyer: Address): Promise<bigint[]> {
      return (await debitsOnChain(chain, { buyer })).map((debit) => debit.amount);
    },
    async close() {
      for (const close of closers.reverse()) await close().catch(() => {});
      await stack.close();
    },
  };
}

/** A started budget stack. */
export type BudgetStack = Awaited<ReturnType<typeof startBudgetStack>>;
