import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { Hex } from "viem";
import { hexToBytes } from "viem";
import { privateKeyToAddress } from "viem/accounts";
import { CHAIN_ID } from "../../../protocol/constants.ts";

/** An in-process EVM (EDR, the engine inside Hardhat) served as JSON-RPC on a loopback port. */
export type DemoChain = { rpcUrl: string; close(): Promise<void> };

type EdrModule = typeof import("@nomicfoundation/edr");

let context: Promise<import("@nomicfoundation/edr").EdrContext> | undefined;

/** EDR allows one context per process: made once, with the L1 provider factory registered. */
function edrContext(edr: EdrModule) {
  context ??= (async () => {
    const created = new edr.EdrContext();
    await created.registerProviderFactory(edr.L1_CHAIN_TYPE, edr.l1ProviderFactory());
    return created;
  })();
  return context;
}

/**
 * Starts an empty chain with id 5042002 in this process (EDR's native engine, no Hardhat), with `funded` accounts
 * holding gas, and serves it on 127.0.0.1 only. Blocks are mined on each transaction.
 * @example const chain = await startDemoChain([adminKey, relayerKey]); ...; await chain.close()
 */
export async function startDemoChain(funded: Hex[]): Promise<DemoChain> {
  let edr: EdrModule;
  try {
    edr = await import("@nomicfoundation/edr");
  } catch (error) {
    throw new Error(
      `the demo needs @nomicfoundation/edr (an optional dependency of service-buyer that did not install here: ${(error as Error).message.split("\n")[0]})`,
    );
  }
  const hardfork = edr.l1HardforkToString(edr.l1HardforkLatest());
  const genesisState = [
    ...edr.l1GenesisState(edr.l1HardforkFromString(hardfork)),
    ...funded.map((key) => ({
      address: hexToBytes(privateKeyToAddress(key)),
      balance: 10n ** 24n,
      code: new Uint8Array(),
    })),
  ];
  const provider = await (await edrContext(edr)).createProvider(
    edr.L1_CHAIN_TYPE,
    {
      allowBlocksWithSameTimestamp: false,
      allowUnlimitedContractSize: false,
      bailOnCallFailure: false,
      bailOnTransactionFailure: false,
      chainId: BigInt(CHAIN_ID),
      coinbase: new Uint8Array(20),
      defaultTransactionGasLimit: 16_777_216n,
      genesisState,
      hardfork,
      minGasPrice: 0n,
      mining: { autoMine: true, blockGasLimit: 60_000_000n, memPool: { order: edr.MineOrdering.Priority } },
      network: { genesisBlockGasLimit: 60_000_000n, genesisBlockTime: BigInt(Math.floor(Date.now() / 1000)) },
      networkId: BigInt(CHAIN_ID),
      observability: {},
      ownedAccounts: [],
      precompileOverrides: [],
    },
    { enable: false, decodeConsoleLogInputsCallback: () => [], printLineCallback: () => {} },
    { subscriptionCallback: () => {} },
    new edr.ContractDecoder(),
  );
  const answer = async (call: { id?: unknown; params?: unknown }) => {
    const response = await provider.handleRequest(JSON.stringify({ ...call, params: call.params ?? [] }));
    const data = typeof response.data === "string" ? JSON.parse(response.data) : response.data;
    return { jsonrpc: "2.0", id: call.id ?? null, ...data };
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", async () => {
      try {
        type Call = { id?: unknown; params?: unknown };
        const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as Call | Call[];
        const out = Array.isArray(body) ? await Promise.all(body.map(answer)) : await answer(body);
        res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(out));
      } catch (error) {
        res
          .writeHead(400, { "content-type": "application/json" })
          .end(
            JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32700, message: (error as Error).message } }),
          );
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const rpcUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    rpcUrl,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
