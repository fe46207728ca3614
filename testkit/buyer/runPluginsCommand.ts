import { runPluginsCli } from "../../services/buyer/src/plugins/cli.ts";

/**
 * Runs `service-plugins` in process as its bin does, capturing what it writes to stdout and stderr.
 * @example const { code, stderr } = await runPluginsCommand("generate", "--card", url, "--out", dir, "--local")
 */
export async function runPluginsCommand(...argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  const code = await runPluginsCli(argv, { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t) });
  return { code, stdout, stderr };
}
