import type { Address, Hex, LocalAccount, PublicClient } from "viem";
import { defined } from "../../protocol/defined.ts";
import type { NonceManager, OnUnknownNonces } from "./nonceManager.ts";
import { createNonceManager } from "./nonceManager.ts";
import { signingAccount } from "./signingAccount.ts";

/**
 * One signer: its nonce lane, whether a batch of its is being broadcast (the next one is cut after it), and until
 * when (ms) this process may send from it (`Infinity` unless signers are leased: createSignerLeasing).
 */
export type Lane = {
  account: LocalAccount;
  nonces: NonceManager;
  broadcasting: boolean;
  /**
   * Transactions sent alone on it (an `exact` settlement, a strike) from when it was picked until their receipt,
   * simulation and fee checks included, before any nonce is taken: busy for the leasing, which gives back no lane
   * that is about to send.
   */
  sending: number;
  heldUntil: number;
  /** Held above this instance's share: no new transaction goes out on it, and it is given back once idle. */
  yielding: boolean;
};

/** Whether this process may send from `lane` now (it holds the signer's lease, or signers are not leased). */
export const holds = (lane: Lane): boolean => Date.now() < lane.heldUntil;

/** Whether a new debit may go out on `lane`: held, and not being given back. */
const open = (lane: Lane): boolean => holds(lane) && !lane.yielding;

export type SignerLanes = ReturnType<typeof createSignerLanes>;

/**
 * The relayer's signers: one lane per debit key (taken in turn) and the facilitator's own lane for strikes. A key
 * given twice (a debit key that is also the facilitator key) gets one lane, so its nonces stay in one order.
 * `onUnknown` gets the pending nonces a lane holds no transaction of, each time it reads its counter from the chain.
 * @example const lanes = createSignerLanes(publicClient, relayerKeys, facilitatorKey); const lane = lanes.idle()
 */
export function createSignerLanes(
  publicClient: PublicClient,
  debitKeys: readonly Hex[],
  strikeKey: Hex,
  onUnknown?: (account: LocalAccount, nonces: number[]) => void,
) {
  const byAddress = new Map<Address, Lane>();
  const laneFor = (key: Hex): Lane => {
    const account = signingAccount(key);
    let lane = byAddress.get(account.address);
    if (!lane) {
      const unknown: OnUnknownNonces = (_address, nonces) => onUnknown?.(account, nonces);
      const nonces = createNonceManager(publicClient, account.address, unknown);
      lane = { account, nonces, broadcasting: false, sending: 0, heldUntil: Number.POSITIVE_INFINITY, yielding: false };
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
    /** Whether a new debit may go out on some debit lane (this process holds one not being given back). */
    anyOpen: (): boolean => debit.some(open),
    /** The next debit lane in turn that this process holds, busy or not, if any. */
    nextDebit(): Lane | undefined {
      for (let i = 0; i < debit.length; i++) {
        const lane = defined(debit[next++ % debit.length], "a debit lane");
        if (open(lane)) return lane;
      }
      return undefined;
    },
    /** The next debit lane in turn that this process holds and that is not broadcasting a batch, if any. */
    idle(): Lane | undefined {
      for (let i = 0; i < debit.length; i++) {
        const lane = debit[next++ % debit.length];
        if (lane && !lane.broadcasting && open(lane)) return lane;
      }
      return undefined;
    },
  };
}
