import { catalogWriter } from "./catalog/catalogWriter.ts";
import type { CodeWriter } from "./contract.ts";
import { anthropicProvider } from "./providers/anthropicProvider.ts";
import { modelWriter } from "./providers/modelWriter.ts";
import { openaiProvider } from "./providers/openaiProvider.ts";

/** A code writer that can say whether its model is reachable (the HTTP service answers 503 when it is not). */
export type AvailableWriter = CodeWriter & { available?(): Promise<boolean> };

async function answers(url: string, headers: Record<string, string> = {}): Promise<boolean> {
  try {
    const response = await fetch(url, { headers, signal: AbortSignal.timeout(3_000) });
    return response.status < 500;
  } catch {
    return false;
  }
}

function required(env: Record<string, string | undefined>, name: string): string {
  const value = env[name];
  if (!value) throw new Error(`STUDIO_LLM_PROVIDER=${env.STUDIO_LLM_PROVIDER} needs ${name}`);
  return value;
}

/**
 * The code writer the environment asks for: `STUDIO_LLM_PROVIDER=openai` (`STUDIO_LLM_URL`, `STUDIO_LLM_MODEL`,
 * `STUDIO_LLM_KEY`), `anthropic` (`STUDIO_LLM_KEY`, `STUDIO_LLM_MODEL`, optional `STUDIO_LLM_URL`), or the embedded
 * offline catalog when unset.
 * @throws {Error} for an unknown provider or a missing setting.
 * @example const writer = chooseWriter(process.env)
 */
export function chooseWriter(env: Record<string, string | undefined>): AvailableWriter {
  const provider = env.STUDIO_LLM_PROVIDER ?? "catalog";
  if (provider === "catalog") return catalogWriter();
  if (provider === "openai") {
    const url = required(env, "STUDIO_LLM_URL").replace(/\/$/, "");
    const key = env.STUDIO_LLM_KEY;
    return {
      ...modelWriter(openaiProvider({ url, model: required(env, "STUDIO_LLM_MODEL"), key })),
      available: () => answers(`${url}/models`, key ? { authorization: `Bearer ${key}` } : {}),
    };
  }
  if (provider === "anthropic") {
    const url = env.STUDIO_LLM_URL ?? "https://api.anthropic.com";
    return {
      ...modelWriter(
        anthropicProvider({
          url,
          model: env.STUDIO_LLM_MODEL ?? "claude-sonnet-4-5",
          key: required(env, "STUDIO_LLM_KEY"),
        }),
      ),
      available: () => answers(url),
    };
  }
  throw new Error(`STUDIO_LLM_PROVIDER=${provider}: unknown provider (catalog, openai, anthropic)`);
}
