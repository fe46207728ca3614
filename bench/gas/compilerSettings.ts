import type { HardhatRuntimeEnvironment } from "hardhat/types/hre";

/** The compiler settings gas figures depend on: the same source costs other gas under others. */
export type CompilerSettings = { solc: string; optimizerRuns: number | null; viaIR: boolean; evmVersion: string };

/**
 * The settings of the project's default Solidity compiler (hardhat.config.ts), which every gas figure is measured
 * under: docs/gas.md names them, and the gas snapshot holds them so that it is never compared across compilers.
 * @example const settings = compilerSettingsOf(hre)
 */
export function compilerSettingsOf(hre: HardhatRuntimeEnvironment): CompilerSettings {
  const solidity = hre.config.solidity;
  const profile = "profiles" in solidity ? solidity.profiles.default : undefined;
  const compiler = profile?.compilers[0];
  const settings = compiler?.settings as
    | { optimizer?: { enabled?: boolean; runs?: number }; viaIR?: boolean; evmVersion?: string }
    | undefined;
  return {
    solc: compiler?.version ?? "?",
    optimizerRuns: settings?.optimizer?.enabled ? (settings.optimizer.runs ?? 200) : null,
    viaIR: settings?.viaIR === true,
    evmVersion: settings?.evmVersion ?? "default",
  };
}

/**
 * The settings as docs/gas.md words them.
 * @example describeCompilerSettings(settings) // "solc 0.8.30, optimizer on, 10000 runs, via IR, EVM cancun"
 */
export function describeCompilerSettings(s: CompilerSettings): string {
  const optimizer = s.optimizerRuns === null ? "optimizer off" : `optimizer on, ${s.optimizerRuns} runs`;
  return `solc ${s.solc}, ${optimizer}${s.viaIR ? ", via IR" : ""}, EVM ${s.evmVersion}`;
}
