import { registerHooks } from "node:module";
import { memoizeBloom } from "./bloomMemo.ts";
import { addLoadKeys, loadKeysBeforeBulkUpsert } from "./bulkUpsertLookup.ts";
import { sampleEventLoopLess } from "./eventLoopPrecision.ts";
import { createLiveQueryTableOnce } from "./liveQueryTable.ts";
import { checkpointPonderPglite } from "./pgliteCheckpoints.ts";
import { refuseTakenPort } from "./portInUse.ts";
import { fixRealtimeCache } from "./realtimeCacheFix.ts";

/**
 * Where Ponder 0.16 is patched as it loads, and with what: each patch checks the code it patches and stops Ponder
 * from starting when that code is not what it was written for, so that an upgrade cannot run silently unpatched or
 * patched twice. The dependency itself stays as installed (no patched copy in the repository); the fixes belong
 * upstream. Preloaded with `node --import` (ponderCommand.ts).
 */
export const PONDER_PATCHES: readonly { module: RegExp; patch: (source: string) => string }[] = [
  { module: /\/ponder\/dist\/esm\/indexing\/index\.js$/, patch: fixRealtimeCache },
  { module: /\/ponder\/dist\/esm\/indexing-store\/cache\.js$/, patch: addLoadKeys },
  { module: /\/ponder\/dist\/esm\/indexing-store\/index\.js$/, patch: loadKeysBeforeBulkUpsert },
  { module: /\/ponder\/dist\/esm\/sync-realtime\/bloom\.js$/, patch: memoizeBloom },
  { module: /\/ponder\/dist\/esm\/utils\/pglite\.js$/, patch: checkpointPonderPglite },
  { module: /\/ponder\/dist\/esm\/runtime\/multichain\.js$/, patch: createLiveQueryTableOnce },
  { module: /\/ponder\/dist\/esm\/runtime\/omnichain\.js$/, patch: createLiveQueryTableOnce },
  { module: /\/ponder\/dist\/esm\/internal\/metrics\.js$/, patch: sampleEventLoopLess },
  { module: /\/ponder\/dist\/esm\/utils\/port\.js$/, patch: refuseTakenPort },
];

registerHooks({
  load(url, context, nextLoad) {
    const loaded = nextLoad(url, context);
    const found = PONDER_PATCHES.find(({ module }) => module.test(url));
    if (!found || loaded.source === undefined) return loaded;
    return { ...loaded, source: found.patch(Buffer.from(loaded.source as Uint8Array).toString("utf8")) };
  },
});
