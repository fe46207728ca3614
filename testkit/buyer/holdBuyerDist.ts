import { createHash } from "node:crypto";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { withFileLock } from "../../services/buyer/src/sdk/withFileLock.ts";

const buyer = new URL("../../services/buyer/", import.meta.url).pathname;

/** One lock per checkout, outside it: the tests of one checkout share its `services/buyer/dist`, no other's. */
const lockPath = join(tmpdir(), `buyer-dist-${createHash("sha256").update(buyer).digest("hex").slice(0, 16)}.lock`);

/**
 * Holds `services/buyer/dist` for one test file, across processes: every file that builds, removes or runs it takes
 * this first, so files running side by side (mocha `--parallel`) never rebuild it under another's feet. Resolves
 * once held, with the release to await in `after`. The wait for another file's turn does not count against the
 * calling hook's or test's timeout (`context`), which starts afresh once the lock is held.
 * @example const release = await holdBuyerDist(this); execFileSync(node, ["services/buyer/build.ts"]); ...; await release()
 */
export async function holdBuyerDist(context: Mocha.Context, timeoutMs = 900_000): Promise<() => Promise<void>> {
  const limit = context.timeout();
  context.timeout(0);
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let held!: () => void;
  const holding = new Promise<void>((resolve) => (held = resolve));
  const turn = withFileLock(
    lockPath,
    () => {
      held();
      return released;
    },
    { timeoutMs },
  );
  try {
    await Promise.race([holding, turn]);
  } finally {
    context.timeout(limit);
  }
  return async () => {
    release();
    await turn;
  };
}
