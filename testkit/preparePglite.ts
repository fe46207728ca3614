import { preparePgliteCluster, templateClusterDir } from "../services/store/pgliteCluster.ts";

/**
 * `npm run test:pglite`: makes this installation's PGlite template and fresh-cluster dump before the suites start
 * (`npm test` runs it beside the contract build), so that a fresh clone's suites and stacks do not wait, all at once,
 * for one of them to run initdb. Where they cannot be kept (a read-only installation), says so and leaves each store
 * to make its own.
 */
const from = performance.now();
try {
  await preparePgliteCluster();
  const seconds = ((performance.now() - from) / 1000).toFixed(1);
  process.stdout.write(
    `PGlite's template ready in ${templateClusterDir()}, its fresh-cluster dump beside it (${seconds} s)\n`,
  );
} catch (error) {
  process.stdout.write(
    `PGlite's template not kept (${(error as Error).message}): each store will run its own initdb\n`,
  );
}
