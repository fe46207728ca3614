import type { Bundle } from "./createEndpoint.ts";

/** What publishing a bundle puts on the marketplace, as the creator confirms it. */
export type PublishSummary = ReturnType<typeof publishSummary>;

/**
 * What a verified bundle would publish: its name, what it does, the request and response schemas, the examples, the
 * price and how it met the marketplace's price floor, who wrote it (the catalog's recipe and parameters, or the provider and model) and how it was verified. The
 * CLI prints it before asking to publish; the HTTP service shows it on a verified draft.
 * @example const summary = publishSummary(bundle)
 */
export function publishSummary(bundle: Bundle) {
  const { contract, report } = bundle;
  return {
    slug: contract.slug,
    name: contract.name,
    description: contract.description,
    category: contract.category,
    tags: contract.tags,
    requestSchema: contract.requestSchema,
    responseSchema: contract.responseSchema,
    examples: contract.examples,
    maxResponseBytes: contract.maxResponseBytes,
    price: contract.price,
    priceFloor: bundle.priceFloor,
    writtenBy: contract.origin,
    verified: {
      checks: report.checks.length,
      passed: report.checks.filter((c) => c.passed).length,
      generatedInputs: report.generatedInputs,
      p95Ms: report.timing.p95Ms,
    },
  };
}
