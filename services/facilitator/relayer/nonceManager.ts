import type { Address, PublicClient } from "viem";

/** Hands out the nonces of one signer in order; one lane per signer. */
export type NonceManager = {
  readonly address: Address;
  /** Runs `send` with the next nonce; sends of one lane are serialised, so nonces reach the node in order. */
  withNonce<T>(send: (nonce: number) => Promise<T>): Promise<T>;
  /** Forgets the local counter; the next send reads the pending count from the chain again. */
  resync(): void;
  /** The transaction at `nonce` is done with (mined, cancelled or given up): no longer this process's to wait for. */
  release(nonce: number): void;
  /** Whether a transaction of this process is still awaited (handed a nonce, not yet released). */
  waiting(): boolean;
};

/**
 * Called when the counter is read from the chain with the nonces between the signer's mined count and its pending
 * count that this process is not waiting for: transactions of an earlier run (a crash), or given up, or lost.
 */
export type OnUnknownNonces = (address: Address, nonces: number[]) => void;

/**
 * A local nonce counter that starts from the chain's pending count and resyncs after a failed send, so a
 * send that never reached the node leaves no gap behind it. Each time it reads the chain (at the first send, after a
 * resync) it hands the pending nonces it holds no transaction of to `onUnknown`, which clears them with cancels.
 * @example await nonces.withNonce((nonce) => wallet.sendTransaction({ ..., nonce }))
 */
export function createNonceManager(
  publicClient: PublicClient,
  address: Address,
  onUnknown?: OnUnknownNonces,
): NonceManager {
  let next: number | null = null;
  let tail: Promise<unknown> = Promise.resolve();
  /** Nonces handed out whose transactions this process is still waiting for. */
  const held = new Set<number>();

  async function readCounter(): Promise<number> {
    const [mined, pending] = await Promise.all([
      publicClient.getTransactionCount({ address, blockTag: "latest" }),
      publicClient.getTransactionCount({ address, blockTag: "pending" }),
    ]);
    const unknown: number[] = [];
    for (let nonce = mined; nonce < pending; nonce++) if (!held.has(nonce)) unknown.push(nonce);
    if (unknown.length > 0) onUnknown?.(address, unknown);
    return pending;
  }

  return {
    address,
    withNonce(send) {
      const run = tail.then(async () => {
        next ??= await readCounter();
        const nonce = next;
        held.add(nonce);
        try {
          const result = await send(nonce);
          next = nonce + 1;
          return result;
        } catch (error) {
          held.delete(nonce);
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
    release(nonce) {
      held.delete(nonce);
    },
    waiting: () => held.size > 0,
  };
}
