import { assertPortFree, PART_PORT_SETTINGS } from "../ports.ts";
import type { StackRun } from "../stackRun.ts";

/**
 * Stops the start, naming the setting, when a port the stack listens on is taken.
 * @example await checkPorts(run)
 */
export async function checkPorts(run: StackRun): Promise<void> {
  const { env } = run;
  const settings = [
    ...Object.entries(PART_PORT_SETTINGS)
      .filter(([part]) => !(run.external && part === "chain"))
      .map(([, setting]) => setting),
    ...(run.postgres ? (["POSTGRES_PORT"] as const) : []),
  ];
  const ports = settings.map((setting) => [env[setting], setting] as const);
  for (const [port, setting] of ports) await assertPortFree(port, setting);
}
