import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { x402Facilitator } from "@x402/core/facilitator";
import { HTTPFacilitatorClient } from "@x402/core/server";
import { toFacilitatorEvmSigner } from "@x402/evm";
import { registerExactEvmScheme as registerFacilitatorScheme } from "@x402/evm/exact/facilitator";
import { ExactEvmScheme } from "@x402/evm/exact/server";
import { paymentMiddleware, x402ResourceServer } from "@x402/express";
import express from "express";
import type { Address, Hex } from "viem";
import { createWalletClient, http, nonceManager, publicActions } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { serviceChain } from "../../services/protocol/chain.ts";
import { CHAIN_ID, TOKEN_DOMAIN_NAME, TOKEN_DOMAIN_VERSION } from "../../services/protocol/constants.ts";

/**
 * The stock x402 v2 stack of `npm run bench:gate`, as its packages' own examples build it, in a process of its own:
 * a facilitator (`@x402/core`'s `x402Facilitator` with `@x402/evm`'s exact scheme, settling each payment with the
 * token's `transferWithAuthorization` and waiting for its receipt) behind Express, and a resource server (Express with
 * `@x402/express`'s `paymentMiddleware`, asking the facilitator over HTTP) whose `POST /echo` answers `{ echo: body }`.
 * The facilitator's account takes viem's nonce manager, so that concurrent settlements do not race for one nonce
 * (the examples' plain account fails them). Settings from the environment: RPC_URL, TOKEN_ADDRESS, PRICE (base units),
 * PAY_TO, FACILITATOR_KEY. Sends `{ url }` (the paid route) to its parent once both servers listen.
 */
const env = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
};
const rpcUrl = env("RPC_URL");
const network = `eip155:${CHAIN_ID}` as const;

const listen = (app: express.Express): Promise<{ server: Server; url: string }> =>
  new Promise((resolve) => {
    const server = app.listen(0, "127.0.0.1", () =>
      resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }),
    );
  });

const account = privateKeyToAccount(env("FACILITATOR_KEY") as Hex, { nonceManager });
const wallet = createWalletClient({ account, chain: serviceChain(rpcUrl), transport: http(rpcUrl) }).extend(
  publicActions,
);
const facilitator = new x402Facilitator();
registerFacilitatorScheme(facilitator, {
  signer: toFacilitatorEvmSigner({
    address: account.address,
    getCode: (args) => wallet.getCode(args),
    readContract: (args) =>
      wallet.readContract({ ...args, args: args.args ?? [] } as Parameters<typeof wallet.readContract>[0]),
    verifyTypedData: (args) => wallet.verifyTypedData(args as Parameters<typeof wallet.verifyTypedData>[0]),
    writeContract: (args) => wallet.writeContract(args as Parameters<typeof wallet.writeContract>[0]),
    sendTransaction: (args) => wallet.sendTransaction(args as Parameters<typeof wallet.sendTransaction>[0]),
    waitForTransactionReceipt: (args) => wallet.waitForTransactionReceipt(args),
  }),
  networks: network,
});
const facilitatorApp = express();
facilitatorApp.use(express.json());
facilitatorApp.get("/supported", (_req, res) => {
  res.json(facilitator.getSupported());
});
facilitatorApp.post("/verify", async (req, res) => {
  res.json(await facilitator.verify(req.body.paymentPayload, req.body.paymentRequirements));
});
facilitatorApp.post("/settle", async (req, res) => {
  res.json(await facilitator.settle(req.body.paymentPayload, req.body.paymentRequirements));
});
const facilitatorServer = await listen(facilitatorApp);

const resourceServer = new x402ResourceServer(new HTTPFacilitatorClient({ url: facilitatorServer.url })).register(
  network,
  new ExactEvmScheme(),
);
const app = express();
app.use(express.json());
app.use(
  paymentMiddleware(
    {
      "POST /echo": {
        accepts: {
          scheme: "exact",
          network,
          payTo: env("PAY_TO") as Address,
          price: {
            amount: env("PRICE"),
            asset: env("TOKEN_ADDRESS") as Address,
            extra: { name: TOKEN_DOMAIN_NAME, version: TOKEN_DOMAIN_VERSION },
          },
          maxTimeoutSeconds: 60,
        },
        description: "echo",
        mimeType: "application/json",
      },
    },
    resourceServer,
  ),
);
app.post("/echo", (req, res) => {
  res.json({ echo: req.body });
});
const served = await listen(app);
process.send?.({ url: `${served.url}/echo` });
// Never outlives the bench: gone when its parent is.
process.on("disconnect", () => process.exit(0));
process.on("SIGTERM", () => {
  served.server.close();
  facilitatorServer.server.close();
  process.exit(0);
});
