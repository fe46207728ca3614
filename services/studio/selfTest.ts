import { isDeepStrictEqual } from "node:util";
import type { Hex, LocalAccount } from "viem";
import { buyerChain } from "../buyer/src/sdk/buyerChain.ts";
import { payForCall } from "../buyer/src/sdk/payForCall.ts";
import { verifyDebit } from "../buyer/src/sdk/verifyDebit.ts";
import type { Receipt } from "../protocol/schemas/receipt.ts";
import type { EndpointContract } from "./contract.ts";
import type { Deployed } from "./deploy.ts";
import { StudioError } from "./studioError.ts";
import type { StudioTarget } from "./studioTarget.ts";

/** What the paid self-test saw: the cap quoted, the receipt, and the debit found on chain. */
export type SelfTestResult = {
  cap: string;
  receipt: Receipt;
  debit: { transaction: Hex; amount: string; block: string };
};

/**
 * Stage 7: calls the live resource as a buyer would, with the buyer SDK: the 402 quote, its terms pinned against the
 * chain, a signed payment for the first example; then checks the answer equals the example's expected output, the
 * receipt is for this resource and payment, and the chain holds its debit (`BatchDebited`) of exactly that amount.
 * @throws {StudioError} stage `self-test`: `payment_failed`, `wrong_answer`, `bad_receipt` or `no_debit`.
 * @example const result = await selfTest({ contract, deployed, target, buyer })
 */
export async function selfTest(p: {
  contract: EndpointContract;
  deployed: Deployed;
  target: StudioTarget;
  buyer: LocalAccount;
}): Promise<SelfTestResult> {
  const example = p.contract.examples[0];
  if (!example) throw new StudioError("self-test", "no_example", "the contract has no example to pay for");
  // The studio pays the resource it just deployed to the host and published through the marketplace it is
  // configured with: its own operator's addresses, not a stranger's, so they may be private (the embedded stack).
  const chain = buyerChain({ rpcUrl: p.target.rpcUrl, escrow: p.target.contracts.escrow, allowPrivateAddresses: true });
  let paid: Awaited<ReturnType<typeof payForCall>>;
  try {
    paid = await payForCall({
      chain,
      account: p.buyer,
      callUrl: p.deployed.callUrl,
      body: example.input,
    });
  } catch (error) {
    throw new StudioError("self-test", "payment_failed", `the paid call failed: ${(error as Error).message}`);
  }
  if (!isDeepStrictEqual(paid.body, example.output))
    throw new StudioError(
      "self-test",
      "wrong_answer",
      "the live resource did not answer the example's expected output",
      {
        input: example.input,
        expected: example.output,
        actual: paid.body,
      },
    );
  const { receipt } = paid;
  if (receipt.payTo !== p.deployed.resourceId || receipt.payer !== p.buyer.address)
    throw new StudioError("self-test", "bad_receipt", "the receipt names another resource or payer", { receipt });
  // A committed receipt is answered before its debit is mined: this waits for the debit, then checks it.
  const mined = await verifyDebit(chain, receipt).catch((error: Error) => {
    throw new StudioError("self-test", "no_debit", `no debit of ${receipt.amount} for this payment: ${error.message}`);
  });
  return {
    cap: paid.terms.cap.toString(),
    receipt,
    debit: { transaction: mined.transaction, amount: receipt.amount, block: mined.blockNumber.toString() },
  };
}
