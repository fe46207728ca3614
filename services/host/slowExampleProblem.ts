import { compileSchema } from "../gate/compileSchema.ts";
import { cardExampleCalls } from "../gate/discoveryExtensionOf.ts";
import { mayCheckSlowly } from "../gate/schemaCheck.ts";
import { checkOffThread } from "../gate/slowSchemaChecks.ts";
import type { DeploymentRequest } from "./deploymentSchema.ts";

/** The card example calls checked at deploy, at most: a card with more has the rest left unchecked and unused. */
const EXAMPLES_CHECKED_MAX = 32;

/**
 * Why a deploy request's sample request or card examples are refused for the time their schema takes to check them,
 * or undefined. The host checks them on its own loop later (the gate's discovery extension, built at the first
 * request after a start, unauthenticated): a value that a schema with `pattern` or `uniqueItems` takes seconds to
 * check would stop every gate of the host then. Each is checked here in the shared worker, under its deadline; a
 * schema that no value can make slow is not checked here.
 * @example const problem = await slowExampleProblem(request); if (problem) refuse(400, problem)
 */
export async function slowExampleProblem(request: DeploymentRequest): Promise<string | undefined> {
  const slowRequest = mayCheckSlowly(request.requestSchema);
  const slowResponse = mayCheckSlowly(request.responseSchema);
  if (!slowRequest && !slowResponse) return undefined;
  // A schema that does not compile is refused for that by prepareDeployment, with its reason.
  try {
    compileSchema(request.requestSchema, "requestSchema");
    compileSchema(request.responseSchema, "responseSchema");
  } catch {
    return undefined;
  }
  const checks: [string, unknown, unknown][] = [];
  if (slowRequest) checks.push(["sampleRequest", request.requestSchema, request.sampleRequest]);
  cardExampleCalls(request.card)
    .slice(0, EXAMPLES_CHECKED_MAX)
    .forEach((call, i) => {
      if (slowRequest) checks.push([`card example ${i + 1}'s request`, request.requestSchema, call.request]);
      if (slowResponse) checks.push([`card example ${i + 1}'s response`, request.responseSchema, call.response]);
    });
  for (const [what, schema, value] of checks) {
    const outcome = await checkOffThread(JSON.stringify(schema), value, "always");
    if (outcome.kind === "timeout" || outcome.kind === "too_deep")
      return `${what}: ${outcome.message}; a schema whose pattern or uniqueItems takes that long on a value is refused`;
  }
  return undefined;
}
