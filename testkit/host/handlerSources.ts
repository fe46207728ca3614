/**
 * Handler sources that tests, benchmarks and the drill deploy beside one another in a shard.
 *
 * `WAITING_ECHO`: an honest handler that answers `{ echo: body }` after `body.waitMs` (an upstream it waits for,
 * without holding the thread), and refuses a body with `refuse` (a 400: a failure its buyer chose).
 */
export const WAITING_ECHO = `export default {
  async fetch(request) {
    const body = await request.json()
    if (body.refuse) return Response.json({ error: 'refused' }, { status: 400 })
    await new Promise((resolve) => setTimeout(resolve, body.waitMs ?? 0))
    return Response.json({ echo: body })
  },
}`;

/** An attacker's handler: answers `{ echo: body }`, and with `{ spin: true }` holds its shard's one thread forever. */
export const SPINNER = `export default {
  async fetch(request) {
    const body = await request.json()
    if (body.spin) for (;;) {}
    return Response.json({ echo: body })
  },
}`;
