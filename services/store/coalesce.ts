/**
 * Group commit: wraps `runMany` (one statement for many items, answers in the items' order) so that callers pass
 * one item each. A call made while no group is running starts a group on the next turn of the event loop
 * (setImmediate), and every call made until then joins it: the requests that arrived together, read from their
 * sockets in the same turn. That turn is what lets an embedded store group at all: PGlite runs a statement
 * synchronously, so a group started at once ran and finished before the next request was even read, and every
 * statement ran alone. A lone call waits one turn (microseconds). Calls made while a group runs wait for it and then
 * go together in the next group (at most `maxItems`), so under load one statement serves many requests instead of
 * one each; that group too starts on a turn of its own, so that other statements get in between groups. If a group
 * fails, each of its items runs again alone, so that one bad item fails only its own caller.
 * @example const reserveOne = coalesce((items) => reserveMany(sql, items)); await reserveOne(item)
 */
export function coalesce<I, O>(runMany: (items: I[]) => Promise<O[]>, maxItems = 128): (item: I) => Promise<O> {
  type Waiting = { item: I; resolve: (o: O) => void; reject: (e: unknown) => void };
  let queue: Waiting[] = [];
  let running = false;

  async function runGroup(group: Waiting[]): Promise<void> {
    try {
      const outputs = await runMany(group.map((w) => w.item));
      if (outputs.length !== group.length) throw new Error(`a group of ${group.length} answered ${outputs.length}`);
      for (const [i, w] of group.entries()) w.resolve(outputs[i] as O);
    } catch (error) {
      if (group.length === 1) group[0]?.reject(error);
      else await Promise.all(group.map((w) => runGroup([w])));
    }
  }

  async function drain(): Promise<void> {
    running = true;
    while (queue.length > 0) {
      // Each group starts on a turn of its own: PGlite answers within microtasks, so a group started at once after the
      // last one would keep every other statement (a request read meanwhile) waiting until the queue is empty.
      await new Promise((resolve) => setImmediate(resolve));
      const group = queue.slice(0, maxItems);
      queue = queue.slice(group.length);
      await runGroup(group);
    }
    running = false;
  }

  return (item) =>
    new Promise<O>((resolve, reject) => {
      queue.push({ item, resolve, reject });
      if (!running) void drain();
    });
}

const groups = new WeakMap<object, Map<unknown, (item: never) => Promise<unknown>>>();

/**
 * The coalesced form of `runMany` for one store (or other owner): one group queue per owner and statement, groups of
 * at most `maxItems` (coalesce's default when unset; the first caller's value holds).
 * @example const stored = await coalescedFor(store, recordMany, (items) => recordMany(store, items))(item)
 */
export function coalescedFor<I, O>(
  owner: object,
  key: unknown,
  runMany: (items: I[]) => Promise<O[]>,
  maxItems?: number,
): (item: I) => Promise<O> {
  let byKey = groups.get(owner);
  if (!byKey) {
    byKey = new Map();
    groups.set(owner, byKey);
  }
  let run = byKey.get(key) as ((item: I) => Promise<O>) | undefined;
  if (!run) {
    run = coalesce(runMany, maxItems);
    byKey.set(key, run as (item: never) => Promise<unknown>);
  }
  return run;
}
