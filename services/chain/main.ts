import { parseEther } from "viem";
import { BLOCK_TIME_MS } from "../protocol/constants.ts";
import { devKey } from "../stack/devAccounts.ts";
import { loadStackConfig } from "../stack/loadStackConfig.ts";
import { startEdrChain } from "./startEdrChain.ts";

/** How many development accounts hold gas and are unlocked, as on Hardhat's own node. */
const DEV_ACCOUNTS = 20;

/**
 * The embedded chain of `npm start` as a process: `startEdrChain` on 127.0.0.1:`CHAIN_PORT` with the 20 development
 * accounts funded and unlocked, mining per transaction or every 500 ms (`CHAIN_MINING`). Stops on SIGTERM or SIGINT.
 */
const env = loadStackConfig(process.env);
const chain = await startEdrChain({
  funded: Array.from({ length: DEV_ACCOUNTS }, (_, i) => ({ key: devKey(i), balance: parseEther("10000") })),
  unlocked: true,
  mining: env.CHAIN_MINING === "interval" ? { intervalMs: BLOCK_TIME_MS } : "auto",
  port: env.CHAIN_PORT,
});
process.stdout.write(`chain 5042002 (EDR) on ${chain.rpcUrl}, base fee floor 20 gwei, mining ${env.CHAIN_MINING}\n`);
const stop = async () => {
  await chain.close();
  process.exit(0);
};
process.once("SIGTERM", () => void stop());
process.once("SIGINT", () => void stop());
