import type { Address, Hex, LocalAccount, PublicClient } from "viem";
import { defined } from "../../protocol/defined.ts";
import type { NonceManager } from "./nonceManager.ts";
import { createNonceManager } from "./nonceManager.ts";
import { signingAccount } from "./signingAccount.ts";

/** One signer: its nonce lane, and whether a batch of its is being broadcast (the next one is cut after it). */
export type Lane = { account: LocalAccount; nonces: NonceManager; broadcasting: boolean };

/**
 * The relayer's signers: one lane per debit key (taken in turn) and the facilitator's own lane for strikes. A key
 * given twice (a debit key that is also the facilitator key) gets one lane, so its nonces stay in one order.
 * @example const lanes = createSignerLanes(publicClient, relayerKeys, facilitatorKey); const lane = lanes.idle()
 */
export function createSignerLanes(publicClient: PublicClient, debitKeys: readonly Hex[], strikeKey: Hex) {
  const byAddress = new Map<Address, Lane>();
  const laneFor = (key: Hex): Lane => {
    const account = signingAccount(key);
    let lane = byAddress.get(account.address);
    if (!lane) {
      lane = { account, nonces: createNonceManager(publicClient, account.address), broadcasting: false };
      byAddress.set(account.address, lane);
    }
    return lane;
  };
  const debit = debitKeys.map(laneFor);
  const strike = laneFor(strikeKey);
  let next = 0;
  return {
    debit,
    strike,
    /** Every distinct signer. */
    all: (): Lane[] => [...byAddress.values()],
    /** The next debit lane in turn, busy or not. */
    nextDebit: (): Lane => defined(debit[next++ % debit.length], "a debit lane"),
    /** The next debit lane in turn that is not broadcasting a batch, if any. */
    idle(): Lane | undefined {
      for (let i = 0; i < debit.length; i++) {
        const lane = debit[next++ % debit.length];
        if (lane && !lane.broadcasting) return lane;
      }
      return undefined;
    },
  };
}
