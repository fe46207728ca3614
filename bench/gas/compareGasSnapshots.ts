import type { GasSnapshot } from "./gasSnapshotOf.ts";

/** One figure of the snapshot: a contract's deployment or one of its functions. */
export type GasChange = { name: string; before: number; after: number; percent: number };

/** What a run measured against the committed snapshot. */
export type GasComparison = {
  /** The compiler settings differ: no figure is comparable. */
  compilerChanged: boolean;
  /** Costlier than the snapshot by more than the tolerance: these fail the check. */
  increases: GasChange[];
  /** Cheaper by more than the tolerance: the snapshot is worth rewriting, nothing fails. */
  decreases: GasChange[];
  /** Measured, not in the snapshot (a new function, or one a test calls for the first time). */
  added: string[];
  /** In the snapshot, measured no more (a function removed, or no test calls it any more). */
  removed: string[];
};

function figures(snapshot: GasSnapshot): Map<string, number> {
  const out = new Map<string, number>();
  for (const [contract, { deployment, functions }] of Object.entries(snapshot.contracts)) {
    out.set(`${contract} deployment`, deployment);
    for (const [fn, gas] of Object.entries(functions)) out.set(`${contract}.${fn}`, gas);
  }
  return out;
}

/**
 * Compares a run's gas with the committed snapshot, figure by figure: an increase of more than `tolerancePercent`
 * percent fails the check, as does a figure only one of the two has (the snapshot no longer describes the contracts).
 * @example const { increases } = compareGasSnapshots(committed, measured, 1)
 */
export function compareGasSnapshots(
  committed: GasSnapshot,
  measured: GasSnapshot,
  tolerancePercent: number,
): GasComparison {
  const before = figures(committed);
  const after = figures(measured);
  const comparison: GasComparison = {
    compilerChanged: JSON.stringify(committed.compiler) !== JSON.stringify(measured.compiler),
    increases: [],
    decreases: [],
    added: [...after.keys()].filter((name) => !before.has(name)),
    removed: [...before.keys()].filter((name) => !after.has(name)),
  };
  for (const [name, gas] of after) {
    const old = before.get(name);
    if (old === undefined || old === gas) continue;
    const percent = old === 0 ? Number.POSITIVE_INFINITY : (100 * (gas - old)) / old;
    const change = { name, before: old, after: gas, percent };
    if (percent > tolerancePercent) comparison.increases.push(change);
    else if (percent < -tolerancePercent) comparison.decreases.push(change);
  }
  return comparison;
}

/** Whether the comparison fails the check. */
export function gasCheckFails(c: GasComparison): boolean {
  return c.compilerChanged || c.increases.length > 0 || c.added.length > 0 || c.removed.length > 0;
}
