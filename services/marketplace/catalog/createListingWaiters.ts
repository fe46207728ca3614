import type { Hex } from "viem";

/**
 * Who waits for a resource to be listed: `wait` resolves true once `notify` names the resource, or false after its
 * timeout.
 * @example const waiters = createListingWaiters(); const listed = waiters.wait(id, 5_000); waiters.notify(id)
 */
export function createListingWaiters() {
  const waiters = new Map<Hex, (() => void)[]>();
  return {
    /** Resolves every wait for `resourceId`. */
    notify(resourceId: Hex): void {
      const resolve = waiters.get(resourceId);
      if (!resolve) return;
      waiters.delete(resourceId);
      for (const done of resolve) done();
    },
    /** Resolves true when `resourceId` is notified, or false after `timeoutMs`. */
    wait(resourceId: Hex, timeoutMs: number): Promise<boolean> {
      return new Promise((resolve) => {
        const timer = setTimeout(() => {
          const list = waiters.get(resourceId)?.filter((fn) => fn !== done);
          if (list?.length) waiters.set(resourceId, list);
          else waiters.delete(resourceId);
          resolve(false);
        }, timeoutMs);
        const done = () => {
          clearTimeout(timer);
          resolve(true);
        };
        waiters.set(resourceId, [...(waiters.get(resourceId) ?? []), done]);
      });
    },
  };
}
