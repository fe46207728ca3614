import type { CompilerSettings } from "./compilerSettings.ts";

/** Our contracts, whose gas the snapshot holds (test mocks and the stablecoin are not ours to tune). */
export const SNAPSHOT_CONTRACTS = ["PaymentEscrow", "ResourceRegistry", "IdentityRegistry"] as const;

/** Per contract: the median gas of its deployments and of each function the tests call, by function name. */
export type GasSnapshot = {
  compiler: CompilerSettings;
  contracts: Record<string, { deployment: number; functions: Record<string, number> }>;
};

/** The shape of what Hardhat writes with `--gas-stats-json` (the fields read here). */
export type GasStatsJson = {
  contracts: Record<
    string,
    {
      contractName: string;
      deployment?: { median: number } | null;
      functions?: Record<string, { median: number }> | null;
    }
  >;
};

/**
 * The snapshot of one run's gas statistics: for each of our contracts, the median gas of its deployments and of each
 * function (a median, not a mean or a maximum, so that a test that adds one unusual call moves it little), with keys
 * sorted so that the file diffs line by line.
 * @example const snapshot = gasSnapshotOf(JSON.parse(readFileSync(statsFile, "utf8")), compilerSettingsOf(hre))
 */
export function gasSnapshotOf(stats: GasStatsJson, compiler: CompilerSettings): GasSnapshot {
  const contracts: GasSnapshot["contracts"] = {};
  for (const name of SNAPSHOT_CONTRACTS) {
    const entry = Object.entries(stats.contracts).find(([id]) => id === `contracts/${name}.sol:${name}`)?.[1];
    if (!entry) continue;
    const functions = Object.fromEntries(
      Object.entries(entry.functions ?? {})
        .map(([fn, gas]) => [fn, gas.median] as const)
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
    );
    contracts[name] = { deployment: entry.deployment?.median ?? 0, functions };
  }
  return { compiler, contracts };
}
