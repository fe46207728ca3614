import type { Address, Hex } from "viem";

/** One debit for the escrow: the buyer's signed authorization and the amount to charge (<= maxAmount). */
export type DebitItem = {
  authorization: {
    buyer: Address;
    resourceId: Hex;
    maxAmount: bigint;
    validAfter: bigint;
    validBefore: bigint;
    nonce: Hex;
  };
  amount: bigint;
  signature: Hex;
  /** Verify accepted the signature through the buyer's ERC-1271 contract: its check may use ERC1271_GAS_LIMIT. */
  signedByContract?: boolean;
};
