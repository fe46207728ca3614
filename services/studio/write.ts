import { MAX_SOURCE_BYTES } from "../host/deploymentSchema.ts";
import type { CodeWriter, EndpointContract, VerifyFailure } from "./contract.ts";
import { StudioError } from "./studioError.ts";

/**
 * Stage 2: the writer turns a contract (and, in a repair round, the failures of the last attempt) into handler
 * source in the form the host runs (`export default { fetch(request, env) }`).
 * @throws {StudioError} stage `write`: `not_a_module` or `source_too_large`, or the writer's own error.
 * @example const source = await write(contract, catalogWriter())
 */
export async function write(
  contract: EndpointContract,
  writer: CodeWriter,
  failures: readonly VerifyFailure[] = [],
  previous?: string,
): Promise<string> {
  let source: string;
  try {
    source = await writer.write(contract, failures, previous);
  } catch (error) {
    if (error instanceof StudioError) throw error;
    throw new StudioError("write", "writer_failed", `the ${writer.name} writer failed: ${(error as Error).message}`);
  }
  if (typeof source !== "string" || !/export\s+default\b/.test(source))
    throw new StudioError("write", "not_a_module", "the handler source has no default export");
  if (Buffer.byteLength(source, "utf8") > MAX_SOURCE_BYTES)
    throw new StudioError("write", "source_too_large", `the handler source is larger than ${MAX_SOURCE_BYTES} bytes`);
  return source;
}
