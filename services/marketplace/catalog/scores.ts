/** A resource's probe record: results of the most recent probes, oldest first (`true` = passed). */
export type ProbeHistory = readonly boolean[];

/** The three scores of an index record, each in [0, 100]. */
export type Scores = { reputation: number; uptime: number; health: { verified: boolean; score: number } };

const round2 = (value: number) => Math.round(value * 100) / 100;

function passShare(history: ProbeHistory, window: number): number {
  const recent = history.slice(-window);
  if (recent.length === 0) return 0;
  return round2((100 * recent.filter(Boolean).length) / recent.length);
}

/**
 * `uptime`: the share of passing probes among the last `uptimeWindow`, in percent (0 before the first probe).
 * @example uptimeOf([true, true, false, true], 100) // 75
 */
export function uptimeOf(history: ProbeHistory, uptimeWindow: number): number {
  return passShare(history, uptimeWindow);
}

/**
 * `health`: `verified` is whether the last probe passed, `score` the share of passing probes among the last
 * `healthWindow` (a short window, so it moves faster than uptime).
 * @example healthOf([false, true], 10) // { verified: true, score: 50 }
 */
export function healthOf(history: ProbeHistory, healthWindow: number): { verified: boolean; score: number } {
  return { verified: history.at(-1) ?? false, score: passShare(history, healthWindow) };
}

/**
 * `reputation` from settled versus struck calls (both chain-derived: `BatchDebited` and `StrikeRecorded` logs), with one
 * pseudo-call of each kind (Laplace smoothing): `100 * (settled + 1) / (settled + struck + 2)`. A new resource
 * starts at 50; it rises towards 100 with settled calls and falls towards 0 with strikes.
 * @example reputationOf(98, 0) // 99
 */
export function reputationOf(settled: number, struck: number): number {
  return round2((100 * (settled + 1)) / (settled + struck + 2));
}
