import { assertPortFree } from "../ports.ts";
import type { StackRun } from "../stackRun.ts";

/**
 * Stops the start, naming the setting, when a port the stack listens on is taken.
 * @example await checkPorts(run)
 */
export async function checkPorts(run: StackRun): Promise<void> {
  const { env } = run;
  const ports: [number, string][] = [
    [env.FACILITATOR_PORT, "FACILITATOR_PORT"],
    [env.HOST_PORT, "HOST_PORT"],
    [env.MARKETPLACE_PORT, "MARKETPLACE_PORT"],
    [env.INDEXER_PORT, "INDEXER_PORT"],
    [env.STUDIO_PORT, "STUDIO_PORT"],
    ...(run.external ? [] : ([[env.CHAIN_PORT, "CHAIN_PORT"]] as [number, string][])),
    ...(run.postgres ? ([[env.POSTGRES_PORT, "POSTGRES_PORT"]] as [number, string][]) : []),
  ];
  for (const [port, setting] of ports) await assertPortFree(port, setting);
}
