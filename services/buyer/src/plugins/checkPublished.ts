import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { DEFAULT_NPM_REGISTRY } from "./mcpLaunch.ts";

const run = promisify(execFile);

/** What {@link checkPublished} returns: the configured registry and whether it serves the exact version. */
export type CheckPublishedReturnType = { registry: string; published: boolean; details: string | undefined };

/**
 * Asks the configured npm registry (npm's own configuration: `.npmrc`, `npm_config_registry`) whether it serves
 * `name@version` exactly, through the ordinary `npm view`. A registry that cannot be reached counts as not published.
 * @example const { published, registry } = await checkPublished("service-buyer", "0.1.0")
 */
export async function checkPublished(
  name: string,
  version: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<CheckPublishedReturnType> {
  const configured = await run("npm", ["config", "get", "registry"], { env }).then(
    ({ stdout }) => stdout.trim(),
    () => DEFAULT_NPM_REGISTRY,
  );
  const registry = configured.endsWith("/") ? configured : `${configured}/`;
  try {
    const { stdout } = await run("npm", ["view", `${name}@${version}`, "version", "--json", `--registry=${registry}`], {
      env,
      timeout: 60_000,
    });
    const shown = stdout.trim() ? (JSON.parse(stdout) as unknown) : undefined;
    const versions = Array.isArray(shown) ? shown : [shown];
    return versions.includes(version)
      ? { registry, published: true, details: undefined }
      : { registry, published: false, details: `npm view ${name}@${version} shows no such version` };
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr ?? String(error);
    const line =
      stderr.split("\n").find((l) => /npm (error|ERR!) (code|404|network)/i.test(l)) ?? stderr.split("\n")[0];
    return { registry, published: false, details: line?.trim() };
  }
}
