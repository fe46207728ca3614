import { isDeepStrictEqual } from "node:util";
import type { ValidateFunction } from "ajv";
import fc from "fast-check";
import { compileSchema } from "../../gate/compileSchema.ts";
import type { HandlerResult } from "../../gate/handler.ts";
import { createSchemaCheck } from "../../gate/schemaCheck.ts";
import type { Sandbox } from "../../host/createSandbox.ts";
import { createSandbox, SandboxStartError } from "../../host/createSandbox.ts";
import { percentile } from "../../protocol/percentile.ts";
import type { EndpointContract, VerifyFailure } from "../contract.ts";
import { schemaArbitrary } from "./schemaArbitrary.ts";

/** Generated inputs whose check may take its deadline before the draw stops. */
const SLOW_CHECKS_MAX = 3;

/** One check of the verification report: what was checked, whether it passed, and the first failures. */
export type VerifyCheck = { check: string; passed: boolean; runs: number; failures: VerifyFailure[] };

/** The verification report: every check, the handler's time (p50, p95, ms), and whether everything passed. */
export type VerifyReport = {
  passed: boolean;
  checks: VerifyCheck[];
  timing: { calls: number; p50Ms: number; p95Ms: number };
  generatedInputs: number;
};

export type VerifyHandlerParameters = {
  contract: EndpointContract;
  source: string;
  /** Inputs generated from the request schema with fast-check (at least 100). */
  generatedRuns?: number;
  /** Wall-time limit of one call (the host's is 10 s; verify is stricter by default). */
  callTimeoutMs?: number;
  /** fast-check seed, so that a report can be reproduced. */
  seed?: number;
};

const MAX_FAILURES = 3;

type Answer =
  | { ok: true; json: unknown; bytes: number; ms: number }
  | { ok: false; error: string; ms: number; bytes?: number; json?: unknown };

async function call(sandbox: Sandbox, input: unknown, contract: EndpointContract, timeoutMs: number): Promise<Answer> {
  const rawBody = Buffer.from(JSON.stringify(input));
  const started = performance.now();
  let result: HandlerResult;
  try {
    result = await sandbox.handler({
      body: input as Record<string, unknown>,
      rawBody,
      signal: AbortSignal.timeout(timeoutMs),
      maxResponseBytes: contract.maxResponseBytes,
    });
  } catch (error) {
    return { ok: false, error: (error as Error).message, ms: performance.now() - started };
  }
  const ms = performance.now() - started;
  const text = result.body.toString("utf8");
  if (result.truncated)
    return {
      ok: false,
      error: `the response is larger than maxResponseBytes (${contract.maxResponseBytes})`,
      ms,
      bytes: result.body.length,
    };
  if (result.status < 200 || result.status > 299)
    return { ok: false, error: `the handler answered ${result.status}: ${text.slice(0, 300)}`, ms };
  if (!/^application\/json\b/i.test(result.contentType ?? ""))
    return { ok: false, error: `the response is ${result.contentType ?? "untyped"}, not application/json`, ms };
  try {
    return { ok: true, json: JSON.parse(text), bytes: result.body.length, ms };
  } catch {
    return { ok: false, error: "the response is not JSON", ms };
  }
}

/**
 * Stage 3: runs a handler in the real workerd sandbox (the host's `createSandbox`: no network, the host's memory
 * limits) and checks it against its contract: every example answers its expected output; every answer is 2xx JSON
 * that validates against the response schema and fits `maxResponseBytes`; at least 100 inputs generated from the
 * request schema with fast-check never crash or hang it and get a schema-valid answer; the same input twice gives
 * the same output. Handler time is measured (p50/p95). A handler that does not load fails the `loads` check.
 * @example const report = await verifyHandler({ contract, source })
 */
export async function verifyHandler(p: VerifyHandlerParameters): Promise<VerifyReport> {
  const { contract } = p;
  const runs = Math.max(100, p.generatedRuns ?? 100);
  const timeoutMs = p.callTimeoutMs ?? 3_000;
  const checks: VerifyCheck[] = [];
  const add = (check: string, failures: VerifyFailure[], count: number) =>
    checks.push({ check, passed: failures.length === 0, runs: count, failures: failures.slice(0, MAX_FAILURES) });
  const times: number[] = [];
  const finish = (generatedInputs: number): VerifyReport => {
    const ms = (rank: number) => (times.length === 0 ? 0 : Math.round(percentile(times, rank) * 100) / 100);
    return {
      passed: checks.every((c) => c.passed),
      checks,
      timing: { calls: times.length, p50Ms: ms(50), p95Ms: ms(95) },
      generatedInputs,
    };
  };

  let validateRequest: ValidateFunction;
  let validateResponse: ValidateFunction;
  try {
    validateRequest = compileSchema(contract.requestSchema, "requestSchema");
    validateResponse = compileSchema(contract.responseSchema, "responseSchema");
  } catch (error) {
    add("schemas_compile", [{ check: "schemas_compile", error: (error as Error).message }], 1);
    return finish(0);
  }
  add("schemas_compile", [], 1);
  // A schema whose pattern or uniqueItems a value can make slow is checked off the studio's loop, each value under
  // a deadline (the gate's checks): an example or an answer the model wrote stalls nothing but its own draft.
  const checkRequest = createSchemaCheck(contract.requestSchema, validateRequest);
  const checkResponse = createSchemaCheck(contract.responseSchema, validateResponse);
  const always = { queue: "always" } as const;

  const badExamples: VerifyFailure[] = [];
  for (const example of contract.examples) {
    const request = await checkRequest(example.input, always);
    const response = request.kind === "valid" ? await checkResponse(example.output, always) : request;
    if (request.kind !== "valid")
      badExamples.push({ check: "examples_match_request_schema", input: example.input, error: request.message });
    else if (response.kind !== "valid")
      badExamples.push({
        check: "examples_match_request_schema",
        input: example.input,
        expected: example.output,
        error: `expected output: ${response.message}`,
      });
  }
  add("examples_match_request_schema", badExamples, contract.examples.length);

  let sandbox: Sandbox;
  try {
    sandbox = await createSandbox({ name: `verify-${contract.slug}`, source: p.source, allowNetwork: [] });
  } catch (error) {
    if (!(error instanceof SandboxStartError)) throw error;
    add("loads", [{ check: "loads", error: error.message }], 1);
    return finish(0);
  }
  add("loads", [], 1);

  const schemaFailures: VerifyFailure[] = [];
  const sizeFailures: VerifyFailure[] = [];
  let answered = 0;
  /** Counts an answer: its time; one too large is a response_size failure, one the schema refuses response_schema. */
  const judge = async (input: unknown, answer: Answer): Promise<void> => {
    times.push(answer.ms);
    if (!answer.ok) {
      if (answer.bytes !== undefined) sizeFailures.push({ check: "response_size", input, error: answer.error });
      return;
    }
    answered++;
    const checked = await checkResponse(answer.json, always);
    if (checked.kind !== "valid")
      schemaFailures.push({ check: "response_schema", input, actual: answer.json, error: checked.message });
  };

  try {
    const exampleFailures: VerifyFailure[] = [];
    for (const example of contract.examples) {
      const answer = await call(sandbox, example.input, contract, timeoutMs);
      await judge(example.input, answer);
      if (!answer.ok)
        exampleFailures.push({
          check: "examples",
          input: example.input,
          expected: example.output,
          error: answer.error,
        });
      else if (!isDeepStrictEqual(answer.json, example.output))
        exampleFailures.push({
          check: "examples",
          input: example.input,
          expected: example.output,
          actual: answer.json,
        });
    }
    add("examples", exampleFailures, contract.examples.length);

    // A schema fast-check cannot draw from is the contract's failure to report (and repair), not the studio's.
    let candidates: unknown[] = [];
    let undrawable: string | undefined;
    try {
      candidates = fc.sample(schemaArbitrary(contract.requestSchema), { numRuns: runs * 4, seed: p.seed ?? 42 });
    } catch (error) {
      undrawable = `no input could be drawn from it: ${(error as Error).message.split("\n")[0]}`;
    }
    // A schema that takes its deadline on a few candidates would take it on hundreds: the draw stops there.
    const inputs: unknown[] = [];
    let slowChecks = 0;
    for (const input of [...contract.edgeCases.map((edge) => edge.input), ...candidates]) {
      if (inputs.length >= runs + contract.edgeCases.length || slowChecks >= SLOW_CHECKS_MAX) break;
      const checked = await checkRequest(input, always);
      if (checked.kind === "valid") inputs.push(input);
      else if (checked.kind === "timeout") slowChecks++;
    }
    if (slowChecks >= SLOW_CHECKS_MAX)
      undrawable = `the request schema took its deadline on ${slowChecks} of them: a pattern that backtracks`;
    const crashFailures: VerifyFailure[] = [];
    if (inputs.length < runs)
      crashFailures.push({
        check: "generated_inputs",
        error: `only ${inputs.length} of ${runs} generated inputs satisfy the request schema${undrawable ? ` (${undrawable})` : ""}`,
      });
    let generated = 0;
    for (const input of inputs) {
      if (crashFailures.length >= MAX_FAILURES) break;
      generated++;
      const answer = await call(sandbox, input, contract, timeoutMs);
      await judge(input, answer);
      if (!answer.ok && answer.bytes === undefined)
        crashFailures.push({ check: "generated_inputs", input, error: answer.error });
    }
    add("generated_inputs", crashFailures, generated);

    const determinism: VerifyFailure[] = [];
    const again = [...contract.examples.map((e) => e.input), ...inputs.slice(0, 10)];
    for (const input of again) {
      if (determinism.length >= MAX_FAILURES) break;
      const first = await call(sandbox, input, contract, timeoutMs);
      const second = await call(sandbox, input, contract, timeoutMs);
      times.push(first.ms, second.ms);
      if (first.ok && second.ok && !isDeepStrictEqual(first.json, second.json))
        determinism.push({ check: "deterministic", input, expected: first.json, actual: second.json });
    }
    add("deterministic", determinism, again.length);
    add("response_schema", schemaFailures, answered);
    add("response_size", sizeFailures, answered + sizeFailures.length);
    return finish(generated);
  } finally {
    await sandbox.dispose();
  }
}
