/**
 * Where Ignition keeps a deployment's record (`deployed_addresses.json`, the journal), which the indexer reads.
 * @example deploymentDir("local-stack") // "/repo/ignition/deployments/local-stack"
 */
export function deploymentDir(deploymentId: string): string {
  return new URL(`../../ignition/deployments/${deploymentId}`, import.meta.url).pathname;
}
