/** The workerd compatibility date every handler runs under (no `nodejs_compat`: no `process`, no `node:fs`). */
export const SANDBOX_COMPATIBILITY_DATE = "2025-01-01";

/** The header naming which loaded handler a call to a shard is for. */
export const SANDBOX_KEY_HEADER = "x-sandbox-key";

/** The header a shard answers, instead of the handler, when the named handler is not loaded in it. */
export const SANDBOX_UNLOADED_HEADER = "x-sandbox-unloaded";

/**
 * The shard's own routes; every other request is a call to a loaded handler. `retire` is the handler entry's own
 * route, which only the dispatcher reaches (it answers 404 to any other `/__sandbox/` path).
 */
export const SHARD_PATHS = {
  health: "/__sandbox/health",
  load: "/__sandbox/load",
  unload: "/__sandbox/unload",
  retire: "/__sandbox/retire",
} as const;

/**
 * The module every handler is loaded beside, as its main module: it answers the load check before any creator code
 * runs, ends its own isolate when the dispatcher retires it (`abortIsolate`: workerd then drops the isolate and its
 * memory), and gives the handler a `ctx` of its own whose `waitUntil` work is part of the call (the answer waits for
 * it, and `waitUntil` after the answer throws), so no work outlives a call.
 */
const HANDLER_ENTRY = `import { abortIsolate } from 'cloudflare:workers'
import handler from './handler.js'
export default {
  async fetch(request, env, ctx) {
    const path = new URL(request.url).pathname
    if (path === '${SHARD_PATHS.health}') {
      return typeof handler?.fetch === 'function' ? new Response('ok') : new Response('the module has no default export with a fetch method', { status: 500 })
    }
    if (path === '${SHARD_PATHS.retire}') abortIsolate('unloaded')
    const pending = []
    let open = true
    const call = Object.freeze({
      waitUntil(promise) {
        if (!open) throw new Error('waitUntil() after the answer: no work outlives its call')
        pending.push(Promise.resolve(promise).catch(() => undefined))
      },
      passThroughOnException() {},
    })
    try {
      const response = await handler.fetch(request, Object.freeze({}), call)
      while (pending.length > 0) await Promise.all(pending.splice(0))
      return response
    } finally {
      open = false
    }
  },
}
`;

/**
 * The source of a shard's dispatcher, the one static worker of a shard's workerd process. It routes each call
 * straight to its handler's isolate: the isolates are named dynamic workers of workerd's Worker Loader
 * (`LOADER.get(name, code)`: workerd keeps a named isolate loaded across requests), each with an empty `env` and the
 * shard's outbound (`env.NETWORK`, or none at all). Between requests the dispatcher keeps only plain data in its
 * module scope: per loaded handler its key, its isolate's name (the key and a load count, so that a reload never
 * meets an isolate of an older source) and its source. Which handler is busy is the host's to know: it counts a call
 * until it has read the answer's last byte (createShard.ts).
 * - It passes an answer on through a stream of its own as the handler's stream gives it, and ends it only when the
 *   handler's stream ends: workerd would end a fixed-length answer once its bytes are out, while the isolate can
 *   still run code behind it. So an answer left open is a call that times out.
 * - A key names one source (createEndpoint.ts): loading a key that is loaded already changes nothing.
 * - Unloading a handler ends its isolate (the entry's `retire` route, `abortIsolate`): workerd drops it from the
 *   loader and frees it once the calls it is serving have ended. A call that comes after gets the unloaded answer.
 * - A handler that ends its own isolate is started again from its source on its next call, like a restart.
 * - A module that throws at its top level never starts, so it cannot be ended: workerd keeps a small failed stub
 *   under its name (its isolate is gone), and the name is never used again.
 * @example writeFileSync(join(dir, "dispatcher.js"), shardDispatcherSource())
 */
export function shardDispatcherSource(): string {
  return `const ENTRY = ${JSON.stringify(HANDLER_ENTRY)}
const KEY = '${SANDBOX_KEY_HEADER}'
const UNLOADED = '${SANDBOX_UNLOADED_HEADER}'
const loaded = new Map()
let loads = 0
const json = (body, status = 200) => Response.json(body, { status })
const entryOf = (env, handler) =>
  env.LOADER.get(handler.name, () => ({
    compatibilityDate: '${SANDBOX_COMPATIBILITY_DATE}',
    mainModule: 'sandbox-entry.js',
    modules: { 'sandbox-entry.js': ENTRY, 'handler.js': handler.source },
    env: {},
    globalOutbound: env.NETWORK ?? null,
  })).getEntrypoint()
const retire = (env, ctx, handler) =>
  ctx.waitUntil(entryOf(env, handler).fetch('http://sandbox${SHARD_PATHS.retire}').then(() => {}, () => {}).then(() => globalThis.gc?.()))
async function load(request, env, ctx) {
  const { key, source } = await request.json()
  if (loaded.has(key)) return json({ loaded: loaded.size })
  const handler = { key, name: key + '#' + ++loads, source }
  let health
  try {
    health = await entryOf(env, handler).fetch('http://sandbox${SHARD_PATHS.health}')
  } catch (error) {
    return json({ error: String(error?.message ?? error).slice(0, 500) }, 422)
  }
  if (health.status !== 200) {
    retire(env, ctx, handler)
    return json({ error: (await health.text()).slice(0, 500) }, 422)
  }
  loaded.set(key, handler)
  return json({ loaded: loaded.size })
}
async function unload(request, env, ctx) {
  const { key } = await request.json()
  const handler = loaded.get(key)
  if (handler) {
    loaded.delete(key)
    retire(env, ctx, handler)
  }
  return json({ loaded: loaded.size })
}
async function call(request, env) {
  const handler = loaded.get(request.headers.get(KEY))
  if (!handler) return new Response(null, { status: 503, headers: { [UNLOADED]: '1' } })
  const headers = new Headers(request.headers)
  headers.delete(KEY)
  const response = await entryOf(env, handler).fetch(new Request(request.url, { method: request.method, headers, body: request.body }))
  const answered = new Headers(response.headers)
  answered.delete(UNLOADED)
  if (!response.body) return new Response(null, { status: response.status, headers: answered })
  const length = Number(answered.get('content-length') ?? NaN)
  const { readable, writable } = Number.isSafeInteger(length) && length >= 0 ? new FixedLengthStream(length) : new IdentityTransformStream()
  response.body.pipeTo(writable).catch(() => {})
  return new Response(readable, { status: response.status, headers: answered })
}
export default {
  fetch(request, env, ctx) {
    const path = new URL(request.url).pathname
    switch (path) {
      case '${SHARD_PATHS.health}':
        return json({ loaded: loaded.size })
      case '${SHARD_PATHS.load}':
        return load(request, env, ctx)
      case '${SHARD_PATHS.unload}':
        return unload(request, env, ctx)
      default:
        return path.startsWith('/__sandbox/') ? new Response(null, { status: 404 }) : call(request, env)
    }
  },
}
`;
}
