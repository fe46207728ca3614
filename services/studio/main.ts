import { pino } from "pino";
import type { Address, Hex, PublicClient } from "viem";
import { createPublicClient, http } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { listen } from "../http/listen.ts";
import { serviceChain } from "../protocol/chain.ts";
import { chooseWriter } from "./chooseWriter.ts";
import { createStudioApp } from "./server/createStudioApp.ts";
import { loadStudioConfig } from "./studioConfig.ts";

/** The studio's HTTP service: `node services/studio/main.ts`, configured by the environment (see README). */
let config: ReturnType<typeof loadStudioConfig>;
try {
  config = loadStudioConfig(process.env);
} catch (error) {
  process.stderr.write(`[studio] ${(error as Error).message}\n`);
  process.exit(1);
}
const logger = pino({ name: "studio", level: config.LOG_LEVEL });
const app = createStudioApp({
  target: {
    rpcUrl: config.RPC_URL,
    hostUrl: config.HOST_URL.replace(/\/$/, ""),
    hostToken: config.HOST_TOKEN,
    marketplaceUrl: config.MARKETPLACE_URL.replace(/\/$/, ""),
    publishToken: config.PUBLISH_TOKEN,
    facilitatorUrl: config.FACILITATOR_URL.replace(/\/$/, ""),
    contracts: {
      token: config.TOKEN_ADDRESS as Address,
      escrow: config.ESCROW_ADDRESS as Address,
      registry: config.REGISTRY_ADDRESS as Address,
    },
  },
  writer: chooseWriter(process.env),
  buyer: privateKeyToAccount(config.STUDIO_BUYER_KEY as Hex),
  client: createPublicClient({ chain: serviceChain(config.RPC_URL), transport: http(config.RPC_URL) }) as PublicClient,
  token: config.STUDIO_TOKEN,
  logger,
});
if (!config.STUDIO_TOKEN) logger.warn("STUDIO_TOKEN is not set: every request but /health is refused");
const server = await listen(app, config.PORT, config.HOST);
logger.info({ address: server.address() }, "studio listening");
const stop = () => server.close(() => process.exit(0));
process.once("SIGTERM", stop);
process.once("SIGINT", stop);
