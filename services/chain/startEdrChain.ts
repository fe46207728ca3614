import { createServer } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import type { Hex } from "viem";
import { hexToBytes } from "viem";
import { privateKeyToAddress } from "viem/accounts";
import { keepIdleConnections } from "../http/keepIdleConnections.ts";
import { BASE_FEE_FLOOR_WEI, CHAIN_ID } from "../protocol/constants.ts";
import { BaseError } from "../protocol/errors.ts";

/** The embedded chain could not start (EDR missing, or the port taken). */
export class EdrChainError extends BaseError {
  override name = "EdrChainError";
}

export type StartEdrChainParameters = {
  /** Accounts holding gas from the genesis block. */
  funded: { key: Hex; balance: bigint }[];
  /** Whether the funded accounts are unlocked (`eth_accounts`, `eth_sendTransaction` without a signature). */
  unlocked?: boolean;
  /** A block per transaction (`auto`), or a block every `intervalMs` milliseconds, empty or not. */
  mining: "auto" | { intervalMs: number };
  /** Loopback unless told; port 0 picks a free one. */
  host?: string;
  port?: number;
};

/** An EDR chain served as JSON-RPC over HTTP. */
export type EdrChain = {
  rpcUrl: string;
  /** A JSON-RPC request straight to the chain, without HTTP. */
  request(method: string, params?: unknown[]): Promise<unknown>;
  close(): Promise<void>;
};

type EdrModule = typeof import("@nomicfoundation/edr");

/** One JSON-RPC call as it arrives. */
type Call = { id?: unknown; method?: unknown; params?: unknown };

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
 * EIP-1559 moves the base fee by `baseFee × (gasUsed − target) / target / denominator` per block. EDR has no minimum
 * base fee; with this denominator a block below target lowers the fee by zero (integer division) and a block above
 * it raises the fee by 1 wei, so a chain that starts at the test network's floor stays on it.
 */
const PINNED_DENOMINATOR = 2n ** 63n;

/**
 * Starts a chain with the test network's id (5042002) in this process (EDR, the engine inside Hardhat, without
 * Hardhat) and serves it on `host:port`. Like the test network, its base fee starts at 20 gwei
 * ({@link BASE_FEE_FLOOR_WEI}) and never drops below it, however many empty blocks are mined, and blocks may share a
 * timestamp, so the chain's clock follows the wall clock under a burst of transactions.
 * @example const chain = await startEdrChain({ funded: [{ key, balance: 10n ** 24n }], mining: "auto" }); ...; await chain.close()
 */
export async function startEdrChain(p: StartEdrChainParameters): Promise<EdrChain> {
  let edr: EdrModule;
  try {
    edr = await import("@nomicfoundation/edr");
  } catch (error) {
    throw new EdrChainError(
      `the local chain needs @nomicfoundation/edr, which did not install here: ${(error as Error).message.split("\n")[0]}`,
    );
  }
  const hardfork = edr.l1HardforkToString(edr.l1HardforkLatest());
  const genesisState = [
    ...edr.l1GenesisState(edr.l1HardforkFromString(hardfork)),
    ...p.funded.map(({ key, balance }) => ({
      address: hexToBytes(privateKeyToAddress(key)),
      balance,
      code: new Uint8Array(),
    })),
  ];
  const provider = await (await edrContext(edr)).createProvider(
    edr.L1_CHAIN_TYPE,
    {
      allowBlocksWithSameTimestamp: true,
      allowUnlimitedContractSize: false,
      // A reverting eth_call is an error carrying its revert, as public nodes answer it: the relayer's simulation and
      // the ERC-1271 check tell a refusal by it (as a result, every simulation passed).
      bailOnCallFailure: true,
      bailOnTransactionFailure: false,
      baseFeeConfig: [{ activation: { hardfork }, maxChangeDenominator: PINNED_DENOMINATOR, elasticityMultiplier: 2n }],
      chainId: BigInt(CHAIN_ID),
      coinbase: new Uint8Array(20),
      defaultTransactionGasLimit: 16_777_216n,
      genesisState,
      hardfork,
      initialBaseFeePerGas: BASE_FEE_FLOOR_WEI,
      minGasPrice: 0n,
      mining: {
        autoMine: p.mining === "auto",
        ...(p.mining === "auto" ? {} : { interval: BigInt(p.mining.intervalMs) }),
        blockGasLimit: 60_000_000n,
        memPool: { order: edr.MineOrdering.Priority },
      },
      network: { genesisBlockGasLimit: 60_000_000n, genesisBlockTime: BigInt(Math.floor(Date.now() / 1000)) },
      networkId: BigInt(CHAIN_ID),
      observability: {},
      ownedAccounts: p.unlocked ? p.funded.map(({ key }) => key) : [],
      precompileOverrides: [],
    },
    { enable: false, decodeConsoleLogInputsCallback: () => [], printLineCallback: () => {} },
    { subscriptionCallback: () => {} },
    new edr.ContractDecoder(),
  );
  const answer = async (call: Call): Promise<{ result?: unknown; error?: { message: string } }> => {
    const response = await provider.handleRequest(JSON.stringify({ ...call, params: call.params ?? [] }));
    const data = typeof response.data === "string" ? JSON.parse(response.data) : response.data;
    return { jsonrpc: "2.0", id: call.id ?? null, ...data };
  };
  const sockets = new Set<Socket>();
  const server = keepIdleConnections(
    createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", async () => {
        try {
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
    }),
  );
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  });
  const host = p.host ?? "127.0.0.1";
  await new Promise<void>((resolve, reject) => {
    server.once("error", (error) =>
      reject(new EdrChainError(`the local chain cannot listen on ${host}:${p.port ?? 0}: ${error.message}`)),
    );
    server.listen(p.port ?? 0, host, resolve);
  });
  const rpcUrl = `http://${host}:${(server.address() as AddressInfo).port}`;
  return {
    rpcUrl,
    async request(method, params = []) {
      const out = await answer({ id: 1, jsonrpc: "2.0", method, params } as Call);
      if (out.error) throw new EdrChainError(`${method}: ${out.error.message}`);
      return out.result;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      // An interval-mining provider keeps a timer: stop it so the process may exit.
      if (p.mining !== "auto")
        await answer({ id: 0, jsonrpc: "2.0", method: "evm_setIntervalMining", params: [0] } as Call);
    },
  };
}
