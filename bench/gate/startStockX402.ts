import { fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import { x402Client } from "@x402/core/client";
import { decodePaymentRequiredHeader, encodePaymentSignatureHeader } from "@x402/core/http";
import { registerExactEvmScheme } from "@x402/evm/exact/client";
import type { Address, Hex, LocalAccount } from "viem";
import { createPublicClient, createWalletClient, http } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { readProcessStat } from "../../services/host/readProcessStat.ts";
import { abiOf } from "../../services/protocol/artifacts.ts";
import { serviceChain } from "../../services/protocol/chain.ts";
import { CHAIN_ID } from "../../services/protocol/constants.ts";
import { defined } from "../../services/protocol/defined.ts";
import { DEV_ROLE, devKey } from "../../services/stack/devAccounts.ts";

const NETWORK = `eip155:${CHAIN_ID}` as const;

/** The stock x402 stack beside a stack of the bench, in its own process (bench/gate/stockX402Server.ts). */
export type StockX402 = {
  /** The paid route, `POST /echo`. */
  url: string;
  /** CPU seconds its process (facilitator and resource server) has used so far. */
  cpuSeconds(): number;
  /**
   * `count` payments signed by a stock client (`@x402/core`'s `x402Client` with `@x402/evm`'s exact scheme) from
   * the route's own 402, buyer after buyer: the value of the `PAYMENT-SIGNATURE` header of each.
   */
  sign(buyers: readonly LocalAccount[], count: number, body: string): Promise<string[]>;
  close(): Promise<void>;
};

export type StartStockX402Parameters = {
  rpcUrl: string;
  /** Buyers to fund: the development admin mints `funds` of the token to each before the stack starts. */
  buyers: readonly LocalAccount[];
  funds: bigint;
  token: Address;
  /** What each call costs, in base units. */
  price: bigint;
  payTo: Address;
  /** The key its facilitator settles with (a funded account no other part of the stack sends from). */
  facilitatorKey: Hex;
};

/** The development admin mints `amount` of the token to each buyer, every transaction sent at once, and waits for them. */
async function mintTo(rpcUrl: string, token: Address, buyers: readonly LocalAccount[], amount: bigint): Promise<void> {
  const chain = serviceChain(rpcUrl);
  const transport = http(rpcUrl);
  const publicClient = createPublicClient({ chain, transport });
  const admin = createWalletClient({ account: privateKeyToAccount(devKey(DEV_ROLE.admin)), chain, transport });
  let nonce = await publicClient.getTransactionCount({ address: admin.account.address, blockTag: "pending" });
  const sent: Hex[] = [];
  for (const buyer of buyers)
    sent.push(
      await admin.writeContract({
        address: token,
        abi: abiOf("IFiatToken"),
        functionName: "mint",
        args: [buyer.address, amount],
        nonce: nonce++,
        gas: 200_000n,
      }),
    );
  for (const hash of sent) {
    const receipt = await publicClient.waitForTransactionReceipt({ hash, pollingInterval: 100 });
    if (receipt.status !== "success") throw new Error(`funding the stock x402 buyers failed in ${hash}`);
  }
}

/**
 * Starts the stock x402 v2 stack (`@x402/express`, `@x402/core`, `@x402/evm`, as their examples wire them) on a
 * chain where the token is deployed, and waits until it serves.
 * @example const stock = await startStockX402({ rpcUrl, token, buyers, funds, price: 10_200n, payTo, facilitatorKey })
 */
export async function startStockX402(p: StartStockX402Parameters): Promise<StockX402> {
  await mintTo(p.rpcUrl, p.token, p.buyers, p.funds);
  const child = fork(fileURLToPath(new URL("./stockX402Server.ts", import.meta.url)), [], {
    stdio: ["ignore", "inherit", "inherit", "ipc"],
    env: {
      ...process.env,
      RPC_URL: p.rpcUrl,
      TOKEN_ADDRESS: p.token,
      PRICE: p.price.toString(),
      PAY_TO: p.payTo,
      FACILITATOR_KEY: p.facilitatorKey,
    },
  });
  const url = await new Promise<string>((resolve, reject) => {
    child.once("message", (message) => resolve((message as { url: string }).url));
    child.once("exit", (code) => reject(new Error(`the stock x402 stack exited with ${code} before it served`)));
  });
  const pid = defined(child.pid, "the stock x402 stack's pid");
  return {
    url,
    cpuSeconds: () => defined(readProcessStat(pid), "the stock x402 stack's process").cpuSeconds,
    async sign(buyers, count, body) {
      const unpaid = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body });
      const header = unpaid.headers.get("PAYMENT-REQUIRED");
      if (unpaid.status !== 402 || !header)
        throw new Error(`the stock x402 stack answered ${unpaid.status} without PAYMENT-REQUIRED to an unpaid call`);
      const required = decodePaymentRequiredHeader(header);
      const clients = buyers.map((signer) => {
        const client = new x402Client();
        registerExactEvmScheme(client, { signer, networks: [NETWORK] });
        // A stock client pays only assets its user allows, and at most what they allow per payment.
        client.setSpendControls({
          allowedAssets: [{ network: NETWORK, asset: p.token, maxAmountPerPayment: p.price.toString() }],
        });
        return client;
      });
      const headers: string[] = [];
      for (let i = 0; i < count; i++) {
        const client = defined(clients[i % clients.length], "a stock client");
        headers.push(encodePaymentSignatureHeader(await client.createPaymentPayload(required)));
      }
      return headers;
    },
    close: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      }),
  };
}
