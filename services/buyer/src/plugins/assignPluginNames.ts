import type { Hex } from "viem";

/** Name of the base plugin; no endpoint plugin may take it. */
export const BASE_PLUGIN_NAME = "service-buyer";

/** Prefix of every per-endpoint plugin name. */
export const ENDPOINT_PLUGIN_PREFIX = "service-";

const FIRST_SUFFIX_DIGITS = 8;

/**
 * Gives each endpoint a distinct plugin name `service-<slug>`. Endpoints whose slugs collide after normalisation
 * (or that would take the base plugin's name) all become `service-<slug>-<first hex digits of the resource id>`,
 * with more digits only where those still clash. The result depends only on the set of (resource id, slug) pairs,
 * never on input order, so regenerating from the same index yields the same names.
 * @example assignPluginNames([{ resourceId: "0xab…", slug: "echo" }]) // Map { "0xab…" => "service-echo" }
 */
export function assignPluginNames(endpoints: readonly { resourceId: Hex; slug: string }[]): Map<Hex, string> {
  const bySlug = new Map<string, Hex[]>();
  for (const { resourceId, slug } of endpoints) bySlug.set(slug, [...(bySlug.get(slug) ?? []), resourceId]);
  const names = new Map<Hex, string>();
  const suffixed: { resourceId: Hex; slug: string }[] = [];
  for (const [slug, ids] of bySlug) {
    const [only] = ids;
    if (ids.length === 1 && only && `${ENDPOINT_PLUGIN_PREFIX}${slug}` !== BASE_PLUGIN_NAME)
      names.set(only, `${ENDPOINT_PLUGIN_PREFIX}${slug}`);
    else for (const resourceId of ids) suffixed.push({ resourceId, slug });
  }
  for (let digits = FIRST_SUFFIX_DIGITS; suffixed.length > 0; digits++) {
    const taken = new Set(names.values());
    const tried = suffixed.map((e) => ({
      ...e,
      name: `${ENDPOINT_PLUGIN_PREFIX}${e.slug}-${e.resourceId.slice(2, 2 + digits)}`,
    }));
    const counts = new Map<string, number>();
    for (const { name } of tried) counts.set(name, (counts.get(name) ?? 0) + 1);
    suffixed.length = 0;
    for (const entry of tried) {
      const clash = taken.has(entry.name) || (counts.get(entry.name) ?? 0) > 1;
      if (clash && digits < 64) suffixed.push(entry);
      else names.set(entry.resourceId, entry.name);
    }
  }
  return names;
}
