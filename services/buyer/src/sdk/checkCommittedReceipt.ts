import type { Hex } from "viem";
import { getAddress } from "viem";
import { abiOf } from "../../../protocol/artifacts.ts";
import { MAX_FEE_STEP_BPS, SCHEME_ESCROW } from "../../../protocol/constants.ts";
import type { Receipt } from "../../../protocol/schemas/receipt.ts";
import { settlementIdOf } from "../../../protocol/settlementId.ts";
import type { BuyerChain } from "./buyerChain.ts";
import { BuyerError } from "./buyerError.ts";

const escrowAbi = abiOf("PaymentEscrow");

/**
 * Checks a committed receipt (answered before its debit is mined) for what can be known before the chain shows the
 * debit: an escrow payment whose `settlementId` is this payment's, `keccak256(abi.encode(chainId, escrow, buyer,
 * nonce))` for the trusted escrow, the one debit the escrow's nonce book allows for it; and, when `checkSplit`, a fee
 * split the escrow can make: the treasury's share is the escrow's current fee of the amount, or one fee change away.
 * The amount within the signed cap is `assertReceiptMatches`'s check. Returns the settlementId.
 * @throws {BuyerError} `bad_receipt` when the receipt is not this payment's committed debit.
 * @example const settlementId = await checkCommittedReceipt(chain, receipt)
 */
export async function checkCommittedReceipt(
  chain: BuyerChain,
  receipt: Receipt,
  options: { checkSplit?: boolean } = {},
): Promise<Hex> {
  if (receipt.scheme !== SCHEME_ESCROW || receipt.status !== "committed")
    throw new BuyerError("bad_receipt", "only an escrow payment's receipt is answered committed");
  const expected = settlementIdOf({
    escrow: chain.escrow,
    buyer: getAddress(receipt.payer),
    nonce: receipt.idemKey as Hex,
  });
  if (receipt.settlementId?.toLowerCase() !== expected.toLowerCase())
    throw new BuyerError("bad_receipt", "the receipt's settlementId is not this payment's (escrow, buyer, nonce)");
  if (options.checkSplit) {
    const feeBps = BigInt(
      (await chain.publicClient.readContract({ address: chain.escrow, abi: escrowAbi, functionName: "feeBps" })) as
        | number
        | bigint,
    );
    const amount = BigInt(receipt.amount);
    const step = BigInt(MAX_FEE_STEP_BPS);
    const low = feeBps > step ? feeBps - step : 0n;
    const treasury = BigInt(receipt.treasuryAmount);
    if (treasury < (amount * low) / 10_000n || treasury > (amount * (feeBps + step)) / 10_000n)
      throw new BuyerError(
        "bad_receipt",
        `the receipt gives the treasury ${treasury} of ${receipt.amount}, not the escrow's fee of ${feeBps} bps`,
      );
  }
  return expected;
}
