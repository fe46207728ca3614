import type { Hex } from "viem";
import { startEdrChain } from "../../../chain/startEdrChain.ts";

/** An in-process EVM (EDR, the engine inside Hardhat) served as JSON-RPC on a loopback port. */
export type DemoChain = { rpcUrl: string; close(): Promise<void> };

/**
 * Starts the embedded chain (`startEdrChain`: chain id 5042002, the test network's 20 gwei base fee floor) in this
 * process with `funded` accounts holding gas, served on 127.0.0.1 only. Blocks are mined on each transaction.
 * @example const chain = await startDemoChain([adminKey, relayerKey]); ...; await chain.close()
 */
export async function startDemoChain(funded: Hex[]): Promise<DemoChain> {
  return startEdrChain({ funded: funded.map((key) => ({ key, balance: 10n ** 24n })), mining: "auto" });
}
