import { existsSync } from "node:fs";
import { readdir, readFile, rename } from "node:fs/promises";
import { join } from "node:path";
import type { Deployment, DeploymentStore } from "./createDeploymentStore.ts";

/** What an import found: the slugs imported, those the store already held, and files that could not be read. */
export type ImportJsonDeploymentsReturnType = { imported: string[]; kept: string[]; unreadable: string[] };

/**
 * Moves deployments kept as one JSON file per slug in `{dataDir}/deployments` (the host's former storage) into the
 * store: each file becomes a deployment unless the store already holds that slug (the store's copy is kept), and the
 * directory is then renamed `deployments.imported-<unix ms>`, so nothing is lost and nothing is imported twice.
 * @example const { imported } = await importJsonDeployments(store, '.data/host')
 */
export async function importJsonDeployments(
  store: DeploymentStore,
  dataDir: string,
): Promise<ImportJsonDeploymentsReturnType> {
  const dir = join(dataDir, "deployments");
  const found: ImportJsonDeploymentsReturnType = { imported: [], kept: [], unreadable: [] };
  if (!existsSync(dir)) return found;
  for (const file of (await readdir(dir)).filter((name) => name.endsWith(".json")).sort()) {
    let deployment: Deployment;
    try {
      deployment = JSON.parse(await readFile(join(dir, file), "utf8")) as Deployment;
      if (typeof deployment?.slug !== "string") throw new Error("no slug");
    } catch {
      found.unreadable.push(file);
      continue;
    }
    const { written } = await store.write(deployment.slug, (existing) => (existing ? undefined : deployment));
    (written ? found.imported : found.kept).push(deployment.slug);
  }
  await rename(dir, join(dataDir, `deployments.imported-${Date.now()}`));
  return found;
}
