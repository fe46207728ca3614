import type { Address, LocalAccount } from "viem";
import { parseEventLogs } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import type { CreateMarketplaceOptions, Marketplace } from "../../services/marketplace/createMarketplace.ts";
import { cardTemplate } from "../../services/protocol/cardTemplate.ts";
import { resourceIdOf } from "../../services/protocol/resourceId.ts";
import type { LocalChain } from "../chain/localChain.ts";
import { devKey, startLocalChain } from "../chain/localChain.ts";
import type { Indexer, StartIndexerOptions } from "../indexer/startIndexer.ts";
import { startIndexer } from "../indexer/startIndexer.ts";
import { sleep } from "../sleep.ts";
import type { FakeResource, FakeResourceState } from "./fakeResource.ts";
import { startFakeResource } from "./fakeResource.ts";
import { buildPublishRequest, servedState } from "./publishFixture.ts";
import { PUBLISH_TOKEN, startMarketplace } from "./startMarketplace.ts";

/** Development accounts that act as creators in marketplace tests (funded with stablecoin for bonds). */
export const CREATOR_INDEXES = [4, 9, 10, 11] as const;

/**
 * A local chain, the Ponder indexer and a marketplace, plus helpers to deploy fake resources and publish them.
 * @example const stack = await startMarketplaceStack(); const { response } = await stack.publish({ slug: "echo" })
 */
export async function startMarketplaceStack(
  options: { indexer?: StartIndexerOptions; env?: Record<string, string | undefined> } & CreateMarketplaceOptions = {},
) {
  const chain: LocalChain = await startLocalChain();
  const { indexer: indexerOptions, ...marketplaceOptions } = options;
  const indexer: Indexer = await startIndexer(chain, indexerOptions);
  const marketplace: Marketplace = await startMarketplace(chain, indexer, marketplaceOptions);
  const resources: FakeResource[] = [];
  const creators: LocalAccount[] = CREATOR_INDEXES.map((i) => privateKeyToAccount(devKey(i)));
  for (const creator of creators) await chain.contracts.token.write.mint([creator.address, 1_000_000_000n]);
  const addresses = {
    token: chain.addresses.token,
    escrow: chain.addresses.escrow,
    registry: chain.addresses.registry,
  };

  /** Deploys a fake resource for `slug` of `creator` and builds a signed publish request for it. */
  async function prepare(o: {
    slug: string;
    creator?: LocalAccount;
    category?: string;
    base?: string;
    perKB?: string;
    max?: string;
    bondValue?: bigint | null;
    name?: string;
    description?: string;
    tamper?: (state: FakeResourceState) => void;
  }) {
    const creator = o.creator ?? creators[0]!;
    const pricing = { base: o.base ?? "1000", perKB: o.perKB ?? "200", max: o.max ?? "50000" };
    const template = cardTemplate(addresses, {
      name: o.name ?? `Resource ${o.slug}`,
      description: o.description ?? `Answers ${o.slug} questions.`,
      pricing,
    });
    const resource = await startFakeResource((url) => {
      const state = servedState(template, url, resourceIdOf(creator.address, o.slug), addresses);
      o.tamper?.(state);
      return state;
    });
    resources.push(resource);
    const built = await buildPublishRequest({
      creator,
      addresses,
      slug: o.slug,
      resourceUrl: resource.url,
      template,
      category: o.category,
      bondValue: o.bondValue,
    });
    return { resource, request: built.request, resourceId: built.resourceId, creator, template };
  }

  /** POSTs a publish request (a string as it is) with the test token (or `token`), answering status and body. */
  async function post(body: unknown, token: string | null = PUBLISH_TOKEN, contentType = "application/json") {
    const response = await fetch(`${marketplace.url}/resources`, {
      method: "POST",
      headers: { "content-type": contentType, ...(token === null ? {} : { authorization: `Bearer ${token}` }) },
      body: typeof body === "string" ? body : JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as any };
  }

  /** Prepares and publishes; answers the prepared parts and the response. */
  async function publish(o: Parameters<typeof prepare>[0]) {
    const prepared = await prepare(o);
    const response = await post(prepared.request);
    return { ...prepared, response };
  }

  /** GETs a marketplace path: status, headers and the parsed body. */
  async function get(path: string) {
    const response = await fetch(`${marketplace.url}${path}`);
    const text = await response.text();
    let body: any = text;
    try {
      body = JSON.parse(text);
    } catch {}
    return { status: response.status, headers: response.headers, body, text };
  }

  /**
   * Waits until the indexer has the chain's latest block and the catalog every change up to it (a checked pull, as the
   * catalog's pushes may still be on their way), and the store's changes have been pulled.
   */
  async function settle(): Promise<void> {
    const head = Number(await chain.publicClient.getBlockNumber());
    // Seconds on a quiet machine; a test run's other suites can slow the indexer and the catalog many times over.
    const deadline = Date.now() + 90_000;
    let progress: Awaited<ReturnType<typeof marketplace.ctx.indexer.progress>> | undefined;
    while (Date.now() < deadline) {
      progress = await marketplace.ctx.indexer.progress();
      if (progress.block !== null && progress.block >= head) {
        await marketplace.ctx.sync.syncNow().catch(() => undefined);
        const synced = marketplace.ctx.sync.state.indexedBlock;
        if (synced !== null && synced >= head) {
          await sleep(3 * marketplace.ctx.config.SYNC_INTERVAL_MS);
          return;
        }
      }
      await sleep(50);
    }
    const { indexedBlock } = marketplace.ctx.sync.state;
    throw new Error(
      `the catalog did not reach block ${head} (indexer at ${progress?.block}, catalog at ${indexedBlock})`,
    );
  }

  /** Mints an identity for `owner` directly on the identity registry (outside the marketplace). */
  async function mintAgentFor(owner: Address): Promise<bigint> {
    const hash = await chain.contracts.identity.write.register(["https://elsewhere.example/agent.json"], {
      account: owner,
    });
    const receipt = await chain.publicClient.waitForTransactionReceipt({ hash });
    return parseEventLogs({ abi: chain.contracts.identity.abi, logs: receipt.logs, eventName: "Registered" })[0]!.args
      .agentId;
  }

  return {
    chain,
    indexer,
    marketplace,
    creators,
    addresses,
    prepare,
    post,
    publish,
    get,
    settle,
    mintAgentFor,
    async stop() {
      for (const resource of resources) await resource.stop().catch(() => {});
      await marketplace.stop();
      await indexer.stop();
      await chain.close();
    },
  };
}

/** A started marketplace stack. */
export type MarketplaceStack = Awaited<ReturnType<typeof startMarketplaceStack>>;
