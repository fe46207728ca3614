/** The workerd compatibility date every handler runs under (no `nodejs_compat`: no `process`, no `node:fs`). */
export const SANDBOX_COMPATIBILITY_DATE = "2025-01-01";

/** The header naming which loaded handler a call to a shard is for. */
export const SANDBOX_KEY_HEADER = "x-sandbox-key";

/** The header a shard answers, instead of the handler, when the named handler is not loaded in it. */
export const SANDBOX_UNLOADED_HEADER = "x-sandbox-unloaded";

/** The shard's own routes; every other request is a call to a loaded handler. */
export const SHARD_PATHS = {
  health: "/__sandbox/health",
  load: "/__sandbox/load",
  unload: "/__sandbox/unload",
} as const;

/**
 * The module every handler is loaded beside, as its main module: it answers the load check before any creator code
 * runs, and gives the handler a `ctx` of its own whose `waitUntil` work is part of the call (the answer waits for it,
 * and `waitUntil` after the answer throws), so no work outlives a call.
 */
const HANDLER_ENTRY = `import handler from './handler.js'
export default {
  async fetch(request, env, ctx) {
    if (new URL(request.url).pathname === '${SHARD_PATHS.health}') {
      return typeof handler?.fetch === 'function' ? new Response('ok') : new Response('the module has no default export with a fetch method', { status: 500 })
    }
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
 * The source of a shard's dispatcher (the one static worker of a shard's workerd process). A Durable Object of its
 * own (ephemeral, never evicted) holds the loaded handlers: each is loaded with workerd's Worker Loader as a dynamic
 * worker, an isolate of its own with an empty `env` and the shard's outbound (`env.NETWORK`, or none at all), and is
 * unloaded by dropping it (the isolate is freed once the dispatcher's heap is collected). The Object also counts, per
 * handler, the requests whose answer is still streaming: the only way an isolate can run code after its answer, so
 * the health probe reports them, and the host knows whom to blame when the process stalls.
 * @example writeFileSync(join(dir, "dispatcher.js"), shardDispatcherSource())
 */
export function shardDispatcherSource(): string {
  return `import { DurableObject } from 'cloudflare:workers'
const ENTRY = ${JSON.stringify(HANDLER_ENTRY)}
const KEY = '${SANDBOX_KEY_HEADER}'
const json = (body, status = 200) => Response.json(body, { status })
export class Handlers extends DurableObject {
  loaded = new Map()
  open = new Map()
  opened(key, by) {
    const n = (this.open.get(key) ?? 0) + by
    if (n > 0) this.open.set(key, n)
    else this.open.delete(key)
  }
  async load(request) {
    const { key, source } = await request.json()
    const worker = this.env.LOADER.load({
      compatibilityDate: '${SANDBOX_COMPATIBILITY_DATE}',
      mainModule: 'sandbox-entry.js',
      modules: { 'sandbox-entry.js': ENTRY, 'handler.js': source },
      env: {},
      globalOutbound: this.env.NETWORK ?? null,
    })
    const entry = worker.getEntrypoint()
    let health
    try {
      health = await entry.fetch('http://sandbox${SHARD_PATHS.health}')
    } catch (error) {
      return json({ error: String(error?.message ?? error).slice(0, 500) }, 422)
    }
    if (health.status !== 200) return json({ error: (await health.text()).slice(0, 500) }, 422)
    this.loaded.set(key, entry)
    return json({ loaded: this.loaded.size })
  }
  async unload(request) {
    const { key } = await request.json()
    this.loaded.delete(key)
    globalThis.gc?.()
    return json({ loaded: this.loaded.size })
  }
  async call(request) {
    const key = request.headers.get(KEY)
    const entry = this.loaded.get(key)
    if (!entry) return new Response(null, { status: 503, headers: { '${SANDBOX_UNLOADED_HEADER}': '1' } })
    const headers = new Headers(request.headers)
    headers.delete(KEY)
    this.opened(key, 1)
    let closed = false
    const close = () => {
      if (closed) return
      closed = true
      this.opened(key, -1)
    }
    try {
      const response = await entry.fetch(new Request(request.url, { method: request.method, headers, body: request.body }))
      const answered = new Headers(response.headers)
      answered.delete('${SANDBOX_UNLOADED_HEADER}')
      if (!response.body) {
        close()
        return new Response(null, { status: response.status, headers: answered })
      }
      const length = Number(answered.get('content-length') ?? NaN)
      const { readable, writable } = Number.isSafeInteger(length) && length >= 0 ? new FixedLengthStream(length) : new IdentityTransformStream()
      response.body.pipeTo(writable).then(close, close)
      return new Response(readable, { status: response.status, headers: answered })
    } catch (error) {
      close()
      throw error
    }
  }
  async fetch(request) {
    switch (new URL(request.url).pathname) {
      case '${SHARD_PATHS.health}':
        return json({ open: [...this.open.keys()] })
      case '${SHARD_PATHS.load}':
        return this.load(request)
      case '${SHARD_PATHS.unload}':
        return this.unload(request)
      default:
        return this.call(request)
    }
  }
}
export default {
  fetch(request, env) {
    return env.HANDLERS.get('handlers').fetch(request)
  },
}
`;
}
