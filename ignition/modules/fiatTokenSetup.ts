import { maxUint256 } from "viem";

/**
 * The local USDC: Circle's FiatTokenV2_2 deployed without a proxy (the implementation itself holds the state, so
 * every account may call it; behind `FiatTokenProxy` the proxy's admin could not), then set up by these calls, in
 * order, each sent by the account that deployed it, which becomes its owner, master minter, pauser and blacklister:
 * `initialize` (name "USDC", symbol "USDC", currency "USD", 6 decimals), `initializeV2` (the EIP-712 name,
 * "USDC"; the version is FiatToken's fixed "2"), `initializeV2_1` (the lost-and-found account for the token's own
 * balance), `initializeV2_2` (no accounts to migrate, the symbol) and `configureMinter` (`minter` may mint without
 * limit). The Ignition module `FiatToken` and the buyer's demo both run exactly these steps.
 * @example for (const step of fiatTokenSetup(deployer, minter)) await wallet.writeContract({ address, abi, ...step })
 */
export function fiatTokenSetup<Deployer, Minter>(deployer: Deployer, minter: Minter) {
  const noAccounts: string[] = [];
  return [
    {
      functionName: "initialize",
      args: ["USDC", "USDC", "USD", 6, deployer, deployer, deployer, deployer],
    },
    { functionName: "initializeV2", args: ["USDC"] },
    { functionName: "initializeV2_1", args: [deployer] },
    { functionName: "initializeV2_2", args: [noAccounts, "USDC"] },
    { functionName: "configureMinter", args: [minter, maxUint256] },
  ];
}
