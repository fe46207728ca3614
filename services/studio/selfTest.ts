import { isDeepStrictEqual } from "node:util";
import type { Hex, LocalAccount } from "viem";
import { acceptReceipt } from "../buyer/src/sdk/acceptReceipt.ts";
import { buyerChain } from "../buyer/src/sdk/buyerChain.ts";
import { BuyerError } from "../buyer/src/sdk/buyerError.ts";
import { payForCall } from "../buyer/src/sdk/payForCall.ts";
import { verifyDebit } from "../buyer/src/sdk/verifyDebit.ts";
import type { Receipt } from "../protocol/schemas/receipt.ts";
import type { EndpointContract } from "./contract.ts";
import type { Deployed } from "./deploy.ts";
import { StudioError } from "./studioError.ts";
import type { StudioTarget } from "./studioTarget.ts";

/**
 * What the paid self-test saw: the cap quoted, the receipt, and the debit: found on chain (`confirmed`, with its
 * transaction and block), or recorded by the facilitator and held until its batch pays for its gas (`committed`, final,
 * on chain by the authorization's end, with its settlementId).
 */
export type SelfTestResult = {
  cap: string;
  receipt: Receipt;
  debit:
    | { settlement: "confirmed"; transaction: Hex; amount: string; block: string }
    | { settlement: "committed"; settlementId: Hex; amount: string };
};

/** How long the self-test looks for a committed debit on chain before it reports it committed. */
const DEBIT_WAIT_MS = 10_000;

/**
 * Stage 7: calls the live resource as a buyer would, with the buyer SDK: the 402 quote, its terms pinned against the
 * chain, a signed payment for the first example; then checks the answer equals the example's expected output, the
 * receipt is for this resource and payment, and its debit of exactly that amount is final: on chain (`BatchDebited`),
 * or committed (its settlementId this payment's) and not mined within DEBIT_WAIT_MS because the relayer holds it.
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
  const noDebit = (error: Error) => {
    throw new StudioError("self-test", "no_debit", `no debit of ${receipt.amount} for this payment: ${error.message}`);
  };
  // A committed receipt is final (acceptReceipt); its debit is reported mined when it lands soon, else committed.
  const accepted = await acceptReceipt(chain, receipt).catch(noDebit);
  const mined =
    accepted.settlement === "confirmed"
      ? accepted
      : await verifyDebit(chain, receipt, { waitMs: DEBIT_WAIT_MS }).catch((error: Error) => {
          if (error instanceof BuyerError && error.code === "not_confirmed") return undefined;
          return noDebit(error);
        });
  const amount = receipt.amount;
  return {
    cap: paid.terms.cap.toString(),
    receipt,
    debit: mined
      ? { settlement: "confirmed", transaction: mined.transaction, amount, block: mined.blockNumber.toString() }
      : { settlement: "committed", settlementId: receipt.settlementId as Hex, amount },
  };
}
