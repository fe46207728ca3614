import { startEdrChain } from "../../services/chain/startEdrChain.ts";

/**
 * `startEdrChain` as a child process for tests (spawnEdrChain.ts): its parameters come as JSON in `EDR_CHAIN`
 * (balances as decimal strings); it prints its RPC URL as one line and stops on SIGTERM. EDR allows one native context
 * per process, and the test process already holds Hardhat's.
 */
const p = JSON.parse(process.env.EDR_CHAIN ?? "{}") as {
  funded: { key: `0x${string}`; balance: string }[];
  mining: "auto" | { intervalMs: number };
};
const chain = await startEdrChain({
  funded: p.funded.map(({ key, balance }) => ({ key, balance: BigInt(balance) })),
  mining: p.mining,
});
process.stdout.write(`${chain.rpcUrl}\n`);
process.once("SIGTERM", () => void chain.close().finally(() => process.exit(0)));
