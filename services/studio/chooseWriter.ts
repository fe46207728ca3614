import { z } from "zod";
import { catalogWriter } from "./catalog/catalogWriter.ts";
import type { CodeWriter } from "./contract.ts";
import { anthropicProvider } from "./providers/anthropicProvider.ts";
import { DEFAULT_DEADLINE_MS, DEFAULT_MAX_TOKENS } from "./providers/modelProvider.ts";
import { modelWriter } from "./providers/modelWriter.ts";
import { openaiProvider } from "./providers/openaiProvider.ts";
import { SetupError } from "./setupError.ts";

/** A code writer that can say whether its model is reachable (the HTTP service answers 503 when it is not). */
export type AvailableWriter = CodeWriter & { available?(): Promise<boolean> };

/** The code writer's settings (`STUDIO_LLM_*`), for the CLI and the HTTP service alike. */
export const writerEnvSchema = z.object({
  STUDIO_LLM_PROVIDER: z.enum(["catalog", "openai", "anthropic"]).default("catalog"),
  STUDIO_LLM_URL: z.url().optional(),
  STUDIO_LLM_MODEL: z.string().min(1).optional(),
  STUDIO_LLM_KEY: z.string().min(1).optional(),
  /** The longest one stage waits for the model: every try, wait and fallback of its requests. */
  STUDIO_LLM_DEADLINE_SECONDS: z.coerce
    .number()
    .positive()
    .max(3_600)
    .default(DEFAULT_DEADLINE_MS / 1000),
  /** `max_tokens` of every request. */
  STUDIO_LLM_MAX_TOKENS: z.coerce.number().int().min(256).max(1_000_000).default(DEFAULT_MAX_TOKENS),
});

async function answers(url: string, headers: Record<string, string> = {}): Promise<boolean> {
  try {
    const response = await fetch(url, { headers, signal: AbortSignal.timeout(3_000) });
    return response.status < 500;
  } catch {
    return false;
  }
}

function required(
  settings: z.output<typeof writerEnvSchema>,
  name: "STUDIO_LLM_URL" | "STUDIO_LLM_MODEL" | "STUDIO_LLM_KEY",
) {
  const value = settings[name];
  if (!value)
    throw new SetupError(
      "invalid_settings",
      `STUDIO_LLM_PROVIDER=${settings.STUDIO_LLM_PROVIDER} needs ${name}`,
      `set ${name} (see services/studio/README.md, "Who writes the code")`,
    );
  return value;
}

/**
 * The code writer the environment asks for: `STUDIO_LLM_PROVIDER=openai` (`STUDIO_LLM_URL`, `STUDIO_LLM_MODEL`,
 * `STUDIO_LLM_KEY`), `anthropic` (`STUDIO_LLM_KEY`, `STUDIO_LLM_MODEL`, optional `STUDIO_LLM_URL`), or the embedded
 * offline catalog when unset; `STUDIO_LLM_DEADLINE_SECONDS` and `STUDIO_LLM_MAX_TOKENS` bound every model request.
 * @throws {SetupError} `invalid_settings` for an unknown provider, a bad value or a missing setting.
 * @example const writer = chooseWriter(process.env)
 */
export function chooseWriter(env: Record<string, string | undefined>): AvailableWriter {
  const parsed = writerEnvSchema.safeParse(
    Object.fromEntries(Object.entries(env).filter(([name, value]) => name.startsWith("STUDIO_LLM_") && value !== "")),
  );
  if (!parsed.success)
    throw new SetupError(
      "invalid_settings",
      `invalid settings: ${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`,
      'fix the settings named (see services/studio/README.md, "Who writes the code")',
    );
  const settings = parsed.data;
  const limits = { deadlineMs: settings.STUDIO_LLM_DEADLINE_SECONDS * 1000, maxTokens: settings.STUDIO_LLM_MAX_TOKENS };
  if (settings.STUDIO_LLM_PROVIDER === "openai") {
    const url = required(settings, "STUDIO_LLM_URL").replace(/\/$/, "");
    const key = settings.STUDIO_LLM_KEY;
    return {
      ...modelWriter(openaiProvider({ url, model: required(settings, "STUDIO_LLM_MODEL"), key, ...limits })),
      available: () => answers(`${url}/models`, key ? { authorization: `Bearer ${key}` } : {}),
    };
  }
  if (settings.STUDIO_LLM_PROVIDER === "anthropic") {
    const url = settings.STUDIO_LLM_URL ?? "https://api.anthropic.com";
    const model = settings.STUDIO_LLM_MODEL ?? "claude-sonnet-4-5";
    return {
      ...modelWriter(anthropicProvider({ url, model, key: required(settings, "STUDIO_LLM_KEY"), ...limits })),
      available: () => answers(url),
    };
  }
  return catalogWriter();
}
