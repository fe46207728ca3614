import { pino } from "pino";
import type { Address, Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { listen } from "../http/listen.ts";
import { parseCommandLine } from "../stack/parseCommandLine.ts";
import { chooseWriter, writerEnvSchema } from "./chooseWriter.ts";
import { loadStudioConfig, studioEnvSchema } from "./loadStudioConfig.ts";
import { createStudioApp } from "./server/createStudioApp.ts";
import { createDraftStore } from "./server/draftStore.ts";
import { SetupError } from "./setupError.ts";
import { studioChainClient } from "./studioTarget.ts";

/** The studio's HTTP service: `node services/studio/main.ts`, configured by the environment (see README). */
parseCommandLine(
  `usage: node services/studio/main.ts   (npm start runs it)

The studio's HTTP service. Settings, from the environment (services/studio/README.md):
  ${Object.keys({ ...studioEnvSchema.shape, ...writerEnvSchema.shape }).join(", ")}`,
  {},
);

let setup: { config: ReturnType<typeof loadStudioConfig>; writer: ReturnType<typeof chooseWriter> };
try {
  setup = { config: loadStudioConfig(process.env), writer: chooseWriter(process.env) };
} catch (error) {
  process.stderr.write(`[studio] ${(error as Error).message}\n`);
  if (error instanceof SetupError) process.stderr.write(`[studio] next: ${error.next}\n`);
  process.exit(1);
}
const { config, writer } = setup;
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
  writer,
  buyer: privateKeyToAccount(config.STUDIO_BUYER_KEY as Hex),
  client: studioChainClient(config.RPC_URL),
  token: config.STUDIO_TOKEN,
  logger,
  drafts: createDraftStore({ ttlMs: config.STUDIO_DRAFT_TTL_SECONDS * 1000 }),
});
if (!config.STUDIO_TOKEN) logger.warn("STUDIO_TOKEN is not set: every request but /health is refused");
const server = await listen(app, config.PORT, config.HOST);
logger.info({ address: server.address() }, "studio listening");
const stop = () => server.close(() => process.exit(0));
process.once("SIGTERM", stop);
process.once("SIGINT", stop);
