import type { z } from "zod";
import type { KeySettingKind } from "./readKeySettings.ts";
import { readKeySettings } from "./readKeySettings.ts";

/** The validated settings, or every problem named (`NAME: what is wrong`). */
export type ParseSettingsReturnType<T> = { success: true; data: T } | { success: false; problems: string[] };

/**
 * Validates a service's environment against its schema once its key settings are read ({@link readKeySettings}:
 * raw hex, or a keystore file with its password file): one problem per setting, a keystore's before the schema's.
 * @example const parsed = parseSettings(facilitatorEnvSchema, process.env, { RELAYER_KEYS: "list" })
 */
export function parseSettings<S extends z.ZodType>(
  schema: S,
  env: Record<string, string | undefined>,
  keySettings: Record<string, KeySettingKind>,
): ParseSettingsReturnType<z.output<S>> {
  const keys = readKeySettings(env, keySettings);
  const parsed = schema.safeParse(keys.env);
  const problems = [
    ...Object.values(keys.problems),
    ...(parsed.error?.issues ?? [])
      .filter((issue) => !(String(issue.path[0]) in keys.problems))
      .map((issue) => `${issue.path.join(".")}: ${issue.message}`),
  ];
  if (problems.length || !parsed.success) return { success: false, problems };
  return { success: true, data: parsed.data };
}
