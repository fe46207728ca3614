import type { Address, PublicClient } from "viem";

/** Hands out the nonces of one signer in order; one lane per signer. */
export type NonceManager = {
  readonly address: Address;
  /** Runs `send` with the next nonce; sends of one lane are serialised, so nonces reach the node in order. */
  withNonce<T>(send: (nonce: number) => Promise<T>): Promise<T>;
  /** Forgets the local counter; the next send reads the pending count from the chain again. */
  resync(): void;
};

/**
 * A local nonce counter that starts from the chain's pending count and resyncs after a failed send, so a
 * send that never reached the node leaves no gap behind it.
 * @example await nonces.withNonce((nonce) => wallet.sendTransaction({ ..., nonce }))
 */
export function createNonceManager(publicClient: PublicClient, address: Address): NonceManager {
  let next: number | null = null;
  let tail: Promise<unknown> = Promise.resolve();
  return {
    address,
    withNonce(send) {
      const run = tail.then(async () => {
        next ??= await publicClient.getTransactionCount({ address, blockTag: "pending" });
        const nonce = next;
        try {
          const result = await send(nonce);
          next = nonce + 1;
          return result;
        } catch (error) {
          next = null;
          throw error;
        }
      });
      tail = run.catch(() => {});
      return run;
    },
    resync() {
      next = null;
    },
  };
}
