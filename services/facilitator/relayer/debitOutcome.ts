import type { Address, Hex } from "viem";

/** What became of one debit on chain (`block`: the number of the block it was mined in). */
export type DebitOutcome =
  | {
      kind: "debited";
      transaction: Hex;
      block: bigint;
      amount: bigint;
      creatorAmount: bigint;
      treasuryAmount: bigint;
      payer: Address;
    }
  | { kind: "skipped"; transaction: Hex; reason: Hex };

/** An `exact` payment for the escrow's `settleExact`. */
export type ExactItem = {
  resourceId: Hex;
  from: Address;
  value: bigint;
  validAfter: bigint;
  validBefore: bigint;
  nonce: Hex;
  signature: Hex;
};
