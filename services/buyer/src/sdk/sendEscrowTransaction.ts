import type { Hex, LocalAccount } from "viem";
import { ContractFunctionRevertedError, createWalletClient, custom, BaseError as ViemError } from "viem";
import { abiOf } from "../../../protocol/artifacts.ts";
import type { BuyerChain } from "./buyerChain.ts";
import { BuyerError } from "./buyerError.ts";

const escrowAbi = abiOf("PaymentEscrow");

/** The escrow functions a buyer calls from its own key. */
export type BuyerEscrowCall =
  | { functionName: "requestWithdrawal"; args: readonly [bigint] }
  | { functionName: "withdraw"; args: readonly [] }
  | { functionName: "setSpendLimit"; args: readonly [bigint, bigint] }
  | { functionName: "applySpendLimit"; args: readonly [Hex] }
  | {
      functionName: "depositWithAuthorization";
      args: readonly [Hex, bigint, bigint, bigint, Hex, Hex];
    };

/**
 * Sends one escrow transaction from the buyer's own key and waits for it to be mined: checks first that the wallet
 * holds native coin for gas (`no_gas`, saying what to do), simulates it so a revert is told by its error name
 * (`transaction_refused`, nothing sent), then sends it. Returns the transaction hash and block.
 * @example const { transaction } = await sendEscrowTransaction(chain, account, { functionName: "withdraw", args: [] })
 */
export async function sendEscrowTransaction(
  chain: BuyerChain,
  account: LocalAccount,
  call: BuyerEscrowCall,
): Promise<{ transaction: Hex; block: bigint }> {
  const gas = await chain.publicClient.getBalance({ address: account.address });
  if (gas === 0n)
    throw new BuyerError(
      "no_gas",
      `${call.functionName} is a transaction the buyer ${account.address} must send itself, and its wallet holds no native coin to pay the gas: send it some of the chain's native coin first (nothing was sent)`,
    );
  const request = { address: chain.escrow, abi: escrowAbi, account, ...call } as const;
  try {
    await chain.publicClient.simulateContract(request as never);
  } catch (error) {
    throw new BuyerError("transaction_refused", `the escrow refuses ${call.functionName}: ${revertOf(error)}`, {
      cause: error,
    });
  }
  const wallet = createWalletClient({
    account,
    chain: chain.publicClient.chain,
    transport: custom(chain.publicClient),
  });
  const transaction = await wallet.writeContract(request as never).catch((error: Error) => {
    if (/insufficient funds/i.test(error.message))
      throw new BuyerError(
        "no_gas",
        `the wallet's ${gas} wei of native coin does not cover the gas of ${call.functionName}: send it more (nothing was sent)`,
      );
    throw error;
  });
  const receipt = await chain.publicClient.waitForTransactionReceipt({ hash: transaction });
  if (receipt.status !== "success")
    throw new BuyerError("transaction_failed", `${call.functionName} (${transaction}) reverted on chain`);
  return { transaction, block: receipt.blockNumber };
}

/** A revert's custom error and arguments, or the first line of what the node said. */
function revertOf(error: unknown): string {
  if (error instanceof ViemError) {
    const revert = error.walk((e) => e instanceof ContractFunctionRevertedError);
    if (revert instanceof ContractFunctionRevertedError && revert.data)
      return `${revert.data.errorName}(${(revert.data.args ?? []).map(String).join(", ")})`;
    return error.shortMessage;
  }
  return (error as Error).message.split("\n")[0] ?? String(error);
}
