import { mkdir, readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Hex } from "viem";
import type { DeploymentRequest } from "./deploymentSchema.ts";

/** A deployment as persisted: the deploy request, its resource id, and the agent id once minted. */
export type Deployment = DeploymentRequest & {
  resourceId: Hex;
  agentId: string | null;
  deployedAt: string;
  updatedAt: string;
};

/** Deployments kept as one JSON file per slug in a data directory, so they survive a restart. */
export type DeploymentStore = {
  list(): Promise<{ deployments: Deployment[]; unreadable: string[] }>;
  put(deployment: Deployment): Promise<void>;
  remove(slug: string): Promise<void>;
};

/**
 * A deployment store in `{dataDir}/deployments/{slug}.json`; each write is atomic (temporary file, then rename).
 * @example const store = await createDeploymentStore('.data/host')
 */
export async function createDeploymentStore(dataDir: string): Promise<DeploymentStore> {
  const dir = join(dataDir, "deployments");
  await mkdir(dir, { recursive: true });
  return {
    async list() {
      const deployments: Deployment[] = [];
      const unreadable: string[] = [];
      for (const file of (await readdir(dir)).filter((name) => name.endsWith(".json")).sort()) {
        try {
          deployments.push(JSON.parse(await readFile(join(dir, file), "utf8")) as Deployment);
        } catch {
          unreadable.push(file);
        }
      }
      return { deployments, unreadable };
    },
    async put(deployment) {
      const file = join(dir, `${deployment.slug}.json`);
      const temporary = `${file}.${process.pid}.${Date.now()}.tmp`;
      await writeFile(temporary, JSON.stringify(deployment, null, 2), { mode: 0o600 });
      await rename(temporary, file);
    },
    async remove(slug) {
      await rm(join(dir, `${slug}.json`), { force: true });
    },
  };
}
