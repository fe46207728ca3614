import type { Address, Hex, PublicClient } from "viem";
import { createPublicClient, encodeFunctionData, isAddressEqual } from "viem";
import { rpcUrlsOf } from "../http/rpcUrls.ts";
import { abiOf } from "../protocol/artifacts.ts";
import { isChainUnavailable, serviceChain } from "../protocol/chain.ts";
import { BLOCK_TIME_MS } from "../protocol/constants.ts";
import { defined } from "../protocol/defined.ts";
import { findDebits } from "../protocol/findDebits.ts";
import { readBaseFeeWei } from "../protocol/readBaseFeeWei.ts";
import { strikeKeyOf } from "../protocol/strikeKey.ts";
import { cachedRead } from "./cachedRead.ts";
import type { RpcErrorObserver } from "./observedTransport.ts";
import { DEFAULT_RPC_TIMEOUT_MS, rpcTransport } from "./observedTransport.ts";

/** What the facilitator reads from the chain about a buyer before reserving, and the block it reflects. */
export type BuyerState = {
  balance: bigint;
  pendingWithdrawal: bigint;
  /** The limit in force and its window; `pending` is a requested tightening that anyone may apply from `effectiveAt`. */
  spendLimit: {
    limit: bigint;
    period: bigint;
    windowStart: bigint;
    spent: bigint;
    pending: { limit: bigint; period: bigint; effectiveAt: bigint } | null;
  };
  nonceSpent: boolean;
  atBlock: bigint;
};

/** What the facilitator reads before reserving an `exact` payment (EIP-3009 on the token), as of `atBlock`. */
export type ExactPayerState = {
  authorizationUsed: boolean;
  nonceSpent: boolean;
  tokenBalance: bigint;
  atBlock: bigint;
};

/** How long the escrow's fee and pause flag are cached by default (ms). */
export const POLICY_TTL_MS = 1_000;

/** The escrow's fee (basis points) and whether an admin has paused debits, as last read. */
export type EscrowPolicy = { feeBps: number; paused: boolean };

/** What the facilitator needs of a resource: whether debits are allowed, its cap and its base price. */
export type ResourceTerms = { active: boolean; cap: bigint; base: bigint; payout: Address };

export type ChainReaderParameters = {
  rpcUrl: string;
  escrow: Address;
  registry: Address;
  token: Address;
  /** How long resource terms are cached (ms). */
  resourceTtlMs?: number;
  /** How long the escrow's fee and pause flag are cached (ms). */
  policyTtlMs?: number;
  /** Most blocks one `eth_getLogs` request spans (public RPCs cap the range); longer searches are paged. */
  logRangeBlocks?: number;
  /** How long one request waits for its answer (ms; `RPC_TIMEOUT_MS`, default DEFAULT_RPC_TIMEOUT_MS). */
  rpcTimeoutMs?: number;
  /** Told of every failed request (metrics). */
  onRpcError?: RpcErrorObserver;
};

/** Reads of escrow, registry and token state, against one RPC endpoint. */
export type ChainReader = ReturnType<typeof createChainReader>;

/**
 * Creates the facilitator's view of the chain. Every read is a plain eth_call; nothing here signs.
 * @example const chain = createChainReader({ rpcUrl, escrow, registry, token })
 */
export function createChainReader({
  rpcUrl,
  escrow,
  registry,
  token,
  resourceTtlMs = 2_000,
  policyTtlMs = POLICY_TTL_MS,
  logRangeBlocks = 1_000,
  rpcTimeoutMs = DEFAULT_RPC_TIMEOUT_MS,
  onRpcError,
}: ChainReaderParameters) {
  const publicClient = createPublicClient({
    chain: serviceChain(rpcUrlsOf(rpcUrl)[0] ?? rpcUrl),
    transport: rpcTransport(rpcUrl, { retryCount: 0, timeout: rpcTimeoutMs, batch: { wait: 0 } }, onRpcError),
  }) as PublicClient;
  const escrowAbi = abiOf("PaymentEscrow");
  const registryAbi = abiOf("ResourceRegistry");
  const tokenAbi = abiOf("IFiatToken");
  const resources = new Map<string, { at: number; terms: ResourceTerms | null }>();
  const policy = cachedRead(policyTtlMs, () =>
    Promise.all([
      publicClient.readContract({ address: escrow, abi: escrowAbi, functionName: "feeBps" }),
      publicClient.readContract({ address: escrow, abi: escrowAbi, functionName: "paused" }),
    ]).then(([feeBps, paused]): EscrowPolicy => ({ feeBps: Number(feeBps), paused })),
  );
  const baseFee = cachedRead(BLOCK_TIME_MS, () => readBaseFeeWei(publicClient));
  return {
    publicClient,
    addresses: { escrow, registry, token },

    /**
     * The escrow's fee and pause flag, read at most once per `policyTtlMs` (a committed receipt's split, and whether
     * a settle may be committed at all). A failed read is not cached.
     */
    escrowPolicy(): Promise<EscrowPolicy> {
      return policy();
    },

    /** The chain's base fee in wei, read at most once per block time (what an `exact` settlement's gas costs). */
    baseFeeWei(): Promise<bigint> {
      return baseFee();
    },

    /** The buyer's escrow state, whether `nonce` is spent and the block read, in one eth_call (at `blockNumber`). */
    async buyerState(buyer: Address, nonce: Hex, blockNumber?: bigint): Promise<BuyerState> {
      const state = await publicClient.readContract({
        address: escrow,
        abi: escrowAbi,
        functionName: "buyerState",
        args: [buyer, nonce],
        ...(blockNumber === undefined ? {} : { blockNumber }),
      });
      return {
        balance: state.balance,
        pendingWithdrawal: state.pendingWithdrawal,
        spendLimit: {
          limit: state.spendLimit,
          period: state.period,
          windowStart: state.windowStart,
          spent: state.spentInWindow,
          pending:
            state.pendingEffectiveAt === 0n
              ? null
              : { limit: state.pendingSpendLimit, period: state.pendingPeriod, effectiveAt: state.pendingEffectiveAt },
        },
        nonceSpent: state.nonceSpent,
        atBlock: state.atBlock,
      };
    },

    /** The token's authorization state, the escrow's nonce and the payer's token balance, all as of one block. */
    async exactPayerState(payer: Address, nonce: Hex): Promise<ExactPayerState> {
      const atBlock = await publicClient.getBlockNumber({ cacheTime: 0 });
      const at = { blockNumber: atBlock };
      const [authorizationUsed, nonceSpent, tokenBalance] = await Promise.all([
        publicClient.readContract({
          address: token,
          abi: tokenAbi,
          functionName: "authorizationState",
          args: [payer, nonce],
          ...at,
        }),
        publicClient.readContract({
          address: escrow,
          abi: escrowAbi,
          functionName: "nonceUsed",
          args: [payer, nonce],
          ...at,
        }),
        publicClient.readContract({ address: token, abi: tokenAbi, functionName: "balanceOf", args: [payer], ...at }),
      ]);
      return { authorizationUsed, nonceSpent, tokenBalance, atBlock };
    },

    async resourceTerms(resourceId: Hex, now = Date.now()): Promise<ResourceTerms | null> {
      const cached = resources.get(resourceId);
      if (cached && now - cached.at < resourceTtlMs) return cached.terms;
      let terms: ResourceTerms | null = null;
      try {
        const resource = await publicClient.readContract({
          address: registry,
          abi: registryAbi,
          functionName: "getResource",
          args: [resourceId],
        });
        terms = {
          active: resource.active,
          cap: resource.pricing.max,
          base: resource.pricing.base,
          payout: resource.payout,
        };
      } catch (error) {
        if (!isRevert(error)) throw error;
      }
      resources.set(resourceId, { at: now, terms });
      return terms;
    },

    /**
     * Every debit of `buyer` with `nonce` (the idemKey) to `resourceId` in the escrow's `BatchDebited` logs from
     * `fromBlock` to the latest block (findDebits, by the resource's topic): how a debit from an earlier attempt is
     * found again. Paged in ranges of `logRangeBlocks`, newest first; stops at the first page that holds one.
     */
    async debitedLogs(buyer: Address, nonce: Hex, resourceId: Hex, fromBlock: bigint) {
      const latest = await publicClient.getBlockNumber({ cacheTime: 0 });
      const span = BigInt(Math.max(1, logRangeBlocks));
      for (let to = latest; to >= fromBlock; to -= span) {
        const from = to - span + 1n > fromBlock ? to - span + 1n : fromBlock;
        const found = (await findDebits(publicClient, { escrow, resourceId, fromBlock: from, toBlock: to })).filter(
          (d) => isAddressEqual(d.buyer, buyer) && d.nonce.toLowerCase() === nonce.toLowerCase(),
        );
        if (found.length > 0)
          return found.map((d) => ({
            transaction: defined(d.transactionHash, "a mined log's transaction"),
            block: defined(d.blockNumber, "a mined log's block"),
            payer: d.buyer,
            resourceId: d.resourceId,
            buyer: d.buyer,
            amount: d.amount,
            creatorAmount: d.amount - d.treasuryAmount,
            treasuryAmount: d.treasuryAmount,
          }));
        if (from === 0n) break;
      }
      return [];
    },

    /** Whether transaction `hash` carries `bytes` (hex, without 0x) at a byte boundary of its input. */
    async transactionCarries(hash: Hex, bytes: string): Promise<boolean> {
      const { input } = await publicClient.getTransaction({ hash });
      const haystack = input.toLowerCase();
      const needle = bytes.toLowerCase();
      for (let at = haystack.indexOf(needle); at !== -1; at = haystack.indexOf(needle, at + 1))
        if (at % 2 === 0) return true;
      return false;
    },

    /** Whether the registry has struck the buyer's failed call with payment nonce `nonce` (its `strikeKeyOf`). */
    strikeRecorded: (call: { buyer: Address; nonce: Hex }) =>
      publicClient.readContract({
        address: registry,
        abi: registryAbi,
        functionName: "strikeRecorded",
        args: [strikeKeyOf(call)],
      }),

    async isContract(address: Address): Promise<boolean> {
      const code = await publicClient.getCode({ address });
      return code !== undefined && code !== "0x";
    },

    /**
     * The wallet's ERC-1271 answer, with exactly the gas the escrow gives the check (ERC1271_GAS_LIMIT): a wallet
     * that needs more fails here as it would on chain, instead of passing verify and being skipped in a batch.
     */
    async isValidErc1271(wallet: Address, hash: Hex, signature: Hex): Promise<boolean> {
      try {
        const data = encodeFunctionData({ abi: erc1271Abi, functionName: "isValidSignature", args: [hash, signature] });
        const { data: result } = await publicClient.call({
          to: wallet,
          data,
          gas: ERC1271_GAS_LIMIT + intrinsicGas(data),
        });
        return result !== undefined && result.slice(0, 66) === ERC1271_MAGIC_WORD;
      } catch (error) {
        if (isChainUnavailable(error)) throw error;
        return false;
      }
    },
  };
}

/** The escrow's `ERC1271_GAS_LIMIT`: the most gas a contract buyer's signature check gets in a debit. */
export const ERC1271_GAS_LIMIT = 500_000n;

/** The word the escrow compares an ERC-1271 answer with: the selector `0x1626ba7e`, left-aligned in 32 bytes. */
const ERC1271_MAGIC_WORD = `0x1626ba7e${"0".repeat(56)}`;

/** Gas a transaction with calldata `data` pays before it executes (21,000 plus 4 per zero byte, 16 per other byte). */
function intrinsicGas(data: Hex): bigint {
  let gas = 21_000n;
  for (let i = 2; i < data.length; i += 2) gas += data.slice(i, i + 2) === "00" ? 4n : 16n;
  return gas;
}

const erc1271Abi = [
  {
    type: "function",
    name: "isValidSignature",
    stateMutability: "view",
    inputs: [
      { name: "hash", type: "bytes32" },
      { name: "signature", type: "bytes" },
    ],
    outputs: [{ name: "", type: "bytes4" }],
  },
] as const;

/** Whether a viem error is a contract revert (an answer) rather than a transport failure (no answer). */
export function isRevert(error: unknown): boolean {
  let current = error as { name?: string; cause?: unknown } | undefined;
  while (current) {
    if (current.name === "ContractFunctionRevertedError" || current.name === "ContractFunctionZeroDataError")
      return true;
    if (current.name === "HttpRequestError" || current.name === "TimeoutError") return false;
    current = current.cause as typeof current;
  }
  return false;
}

export { isChainUnavailable };
