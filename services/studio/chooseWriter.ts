import { catalogWriter } from "./catalog/catalogWriter.ts";
import type { CodeWriter } from "./contract.ts";

/**
 * The code writer the environment asks for: `STUDIO_LLM_PROVIDER` = `openai` or `anthropic` (model providers), or
 * the embedded offline catalog when unset.
 * @throws {Error} for an unknown provider or a model provider that is not available in this build.
 * @example const writer = chooseWriter(process.env)
 */
export function chooseWriter(env: Record<string, string | undefined>): CodeWriter {
  const provider = env.STUDIO_LLM_PROVIDER ?? "catalog";
  if (provider === "catalog") return catalogWriter();
  throw new Error(`STUDIO_LLM_PROVIDER=${provider}: unknown provider (catalog, openai, anthropic)`);
}
