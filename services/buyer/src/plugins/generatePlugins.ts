import { existsSync } from "node:fs";
import { resolve } from "node:path";
import type { Hex } from "viem";
import type { Card } from "../../../protocol/schemas/card.ts";
import { redactUrl } from "../sdk/redactUrl.ts";
import { assignPluginNames, BASE_PLUGIN_NAME } from "./assignPluginNames.ts";
import { type BuyerPackage, buyerPackage } from "./buyerPackage.ts";
import { checkPublished } from "./checkPublished.ts";
import { PackageNotPublishedError, PluginsUsageError } from "./errors.ts";
import { DEFAULT_NPM_REGISTRY, type McpLaunch } from "./mcpLaunch.ts";
import { type CardInput, projectEndpoints } from "./projectEndpoints.ts";
import { readCard } from "./readCard.ts";
import { readIndex } from "./readIndex.ts";
import { renderPlugins } from "./renderPlugins.ts";
import type { Skipped } from "./skipped.ts";
import { writePluginTree } from "./writePluginTree.ts";

/** Inputs of {@link generatePlugins}: the flags of `service-plugins generate`. */
export type GeneratePluginsParameters = {
  marketplaceUrl?: string | undefined;
  cards?: readonly string[];
  out: string;
  launch: "local" | "published";
  prune?: boolean;
  base?: boolean;
  /** Read each listed endpoint's card for its words; by default whenever a marketplace is read. */
  enrich?: boolean | undefined;
  /** Progress lines (the CLI sends them to stderr). */
  log?: (line: string) => void;
  /** Environment of `npm` for the `--published` check. */
  env?: NodeJS.ProcessEnv;
  /** The buyer package to launch; the one this code belongs to by default. */
  buyer?: BuyerPackage;
};

/** The summary `--json` prints. */
export type GeneratePluginsReturnType = {
  out: string;
  marketplace: string;
  launch: McpLaunch["kind"];
  plugins: { name: string; resourceId: Hex | null; slug: string | null }[];
  skipped: Skipped[];
  files: number;
};

const ENRICH_CONCURRENCY = 8;

/**
 * Turns a marketplace index and/or agent cards into a Claude Code plugin marketplace under `out`. Everything is read
 * and checked before anything is written: an unreachable marketplace or an unpublished package throws and leaves
 * `out` untouched; a bad record or card is skipped with a reason in `skipped`.
 * @throws {PluginsUsageError | MarketplaceUnreachableError | PackageNotPublishedError}
 * @example await generatePlugins({ marketplaceUrl: "http://127.0.0.1:4000", out: "plugins-out", launch: "local" })
 */
export async function generatePlugins(parameters: GeneratePluginsParameters): Promise<GeneratePluginsReturnType> {
  const log = parameters.log ?? (() => {});
  const cardUrls = [...new Set(parameters.cards ?? [])];
  const marketplaceUrl = parameters.marketplaceUrl
    ? baseUrl(parameters.marketplaceUrl, "--marketplace-url")
    : undefined;
  for (const url of cardUrls) baseUrl(url, "--card");
  if (!marketplaceUrl && cardUrls.length === 0)
    throw new PluginsUsageError("Nothing to generate from: give --marketplace-url <url> and/or --card <url>.");
  if (parameters.enrich && !marketplaceUrl) throw new PluginsUsageError("--enrich needs --marketplace-url.");
  const enrich = parameters.enrich ?? marketplaceUrl !== undefined;
  const out = resolve(parameters.out);
  const buyer = parameters.buyer ?? buyerPackage();
  const launch = await resolveLaunch(parameters.launch, buyer, parameters.env, log);

  const skipped: Skipped[] = [];
  let index: { marketplaceUrl: string; records: Awaited<ReturnType<typeof readIndex>>["records"] } | undefined;
  if (marketplaceUrl) {
    log(`reading the index of ${redactUrl(marketplaceUrl)}`);
    const read = await readIndex(marketplaceUrl);
    skipped.push(...read.skipped);
    index = { marketplaceUrl, records: read.records };
    log(`${read.records.length} active endpoint(s) listed`);
  }
  const enriched = new Map<Hex, Card>();
  if (enrich && index) {
    log(`reading ${index.records.length} agent card(s) for descriptions`);
    const reads = await mapLimited(index.records, ENRICH_CONCURRENCY, (r) => readCard(r.cardUrl, r.resourceId));
    const kept = [];
    for (const [i, read] of reads.entries()) {
      const record = index.records[i];
      if (!record) continue;
      if (read.ok) {
        enriched.set(record.resourceId, read.card);
        kept.push(record);
      } else skipped.push({ ...read.skipped, source: `${read.skipped.source} (of ${record.slug})` });
    }
    index = { ...index, records: kept };
  }
  const cards: CardInput[] = [];
  for (const url of cardUrls) {
    log(`reading the card ${redactUrl(url)}`);
    const read = await readCard(url, index?.records.find((r) => r.cardUrl === url)?.resourceId);
    if (read.ok) cards.push({ url, card: read.card, resourceId: read.resourceId });
    else skipped.push(read.skipped);
  }
  for (const { source, reason } of skipped) log(`warning: skipped ${source}: ${reason}`);

  const endpoints = projectEndpoints({ index, enriched, cards });
  const names = assignPluginNames(endpoints);
  const named = endpoints.map((endpoint) => ({ name: names.get(endpoint.resourceId) ?? "", endpoint }));
  const base = parameters.base ?? true;
  const files = renderPlugins({
    endpoints: named,
    base,
    marketplaceUrl: marketplaceUrl ?? "",
    launch,
    version: buyer.version,
    outDir: out,
  });
  writePluginTree(out, files, { prune: parameters.prune ?? false });
  log(`wrote ${named.length + (base ? 1 : 0)} plugin(s) and ${files.size} file(s) to ${out}`);
  const plugins = [
    ...(base ? [{ name: BASE_PLUGIN_NAME, resourceId: null, slug: null }] : []),
    ...named
      .map(({ name, endpoint }) => ({ name, resourceId: endpoint.resourceId, slug: endpoint.slug }))
      .sort((a, b) => (a.name < b.name ? -1 : 1)),
  ];
  return {
    out,
    marketplace: `${out}/.claude-plugin/marketplace.json`,
    launch: launch.kind,
    plugins,
    skipped,
    files: files.size,
  };
}

async function resolveLaunch(
  kind: "local" | "published",
  buyer: BuyerPackage,
  env: NodeJS.ProcessEnv | undefined,
  log: (line: string) => void,
): Promise<McpLaunch> {
  if (kind === "local") {
    if (!existsSync(buyer.mcpEntry))
      log(`warning: ${buyer.mcpEntry} is not built yet; run \`npm run build\` in ${buyer.root} before launching`);
    return { kind, entry: buyer.mcpEntry };
  }
  const spec = `${buyer.name}@${buyer.version}`;
  log(`checking that ${spec} is published`);
  const check = await checkPublished(buyer.name, buyer.version, env);
  const registry = redactUrl(check.registry);
  if (!check.published) throw new PackageNotPublishedError(spec, registry, check.details);
  return {
    kind,
    packageName: buyer.name,
    version: buyer.version,
    registry: registry === DEFAULT_NPM_REGISTRY ? undefined : registry,
  };
}

function baseUrl(value: string, flag: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new PluginsUsageError(`${flag} needs an http(s) URL, got "${value}".`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new PluginsUsageError(`${flag} needs an http(s) URL, got "${value}".`);
  return value.replace(/\/+$/, "");
}

async function mapLimited<T, R>(items: readonly T[], limit: number, map: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < items.length; i = next++) results[i] = await map(items[i] as T);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
