import type { Address } from "viem";
import { zeroHash } from "viem";
import { abiOf } from "../../../protocol/artifacts.ts";
import type { BuyerChain } from "./buyerChain.ts";

export type ReadBalanceReturnType = {
  address: Address;
  /** The stablecoin in the wallet itself (not yet deposited), base units. */
  wallet: bigint;
  /** Deposited in the escrow and spendable by calls. */
  escrow: bigint;
  /** Requested for withdrawal (no longer spendable). */
  pendingWithdrawal: bigint;
  /** Unix seconds from which `withdraw` pays the pending withdrawal out (0: none requested). */
  withdrawalUnlocksAt: bigint;
  /** The wallet's native coin, which pays the gas of the transactions the buyer sends itself. */
  gas: bigint;
  /**
   * The buyer's own on-chain spend limit in force (0 = none) per `periodSeconds`, and what the window has spent;
   * `pending` is a requested tightening, which anyone may apply (`applySpendLimit`) from `effectiveAt` (unix seconds).
   */
  spendLimit: {
    limit: bigint;
    periodSeconds: bigint;
    spentInWindow: bigint;
    pending: { limit: bigint; periodSeconds: bigint; effectiveAt: bigint } | null;
  };
  atBlock: bigint;
};

/**
 * Reads a buyer's wallet and escrow position from the chain.
 * @example const { escrow } = await readBalance(chain, account.address)
 */
export async function readBalance(chain: BuyerChain, address: Address): Promise<ReadBalanceReturnType> {
  const escrowAbi = abiOf("PaymentEscrow");
  const token = await chain.publicClient.readContract({ address: chain.escrow, abi: escrowAbi, functionName: "token" });
  const [state, wallet, [, withdrawalUnlocksAt], gas] = await Promise.all([
    chain.publicClient.readContract({
      address: chain.escrow,
      abi: escrowAbi,
      functionName: "buyerState",
      args: [address, zeroHash],
    }),
    chain.publicClient.readContract({
      address: token,
      abi: abiOf("IFiatToken"),
      functionName: "balanceOf",
      args: [address],
    }),
    chain.publicClient.readContract({
      address: chain.escrow,
      abi: escrowAbi,
      functionName: "pendingWithdrawal",
      args: [address],
    }),
    chain.publicClient.getBalance({ address }),
  ]);
  return {
    address,
    wallet,
    escrow: state.balance,
    pendingWithdrawal: state.pendingWithdrawal,
    withdrawalUnlocksAt: BigInt(withdrawalUnlocksAt),
    gas,
    spendLimit: {
      limit: state.spendLimit,
      periodSeconds: state.period,
      spentInWindow: state.spentInWindow,
      pending:
        state.pendingEffectiveAt === 0n
          ? null
          : {
              limit: state.pendingSpendLimit,
              periodSeconds: state.pendingPeriod,
              effectiveAt: state.pendingEffectiveAt,
            },
    },
    atBlock: state.atBlock,
  };
}
