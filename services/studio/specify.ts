import type { CodeWriter, EndpointContract } from "./contract.ts";
import { endpointContractSchema } from "./contract.ts";
import { refuseSentence } from "./refuseSentence.ts";
import { StudioError } from "./studioError.ts";

/**
 * Stage 1: a sentence becomes an endpoint contract, or a refusal with its reason before any code exists. The
 * writer's contract is validated (schemas, at least three examples) whatever the provider.
 * @throws {StudioError} stage `specify`: `empty_sentence`, `sentence_too_long`, `not_an_endpoint`, `forbidden_*`,
 * `moderation_refused`, `no_match` (catalog), `invalid_contract`.
 * @example const contract = await specify("Return the SHA-256 hex digest of a text", catalogWriter())
 */
export async function specify(sentence: string, writer: CodeWriter): Promise<EndpointContract> {
  const refusal = refuseSentence(sentence);
  if (refusal) throw new StudioError("specify", refusal.code, refusal.reason);
  const contract = await writer.specify(sentence.trim());
  const parsed = endpointContractSchema.safeParse(contract);
  if (!parsed.success)
    throw new StudioError(
      "specify",
      "invalid_contract",
      `the ${writer.name} writer returned an invalid contract: ${parsed.error.issues[0]?.message}`,
    );
  return parsed.data;
}
