import { readFileSync } from "node:fs";

/** The sample handlers shipped with the host. */
export const SAMPLE_NAMES = ["echo", "text-stats", "digest", "json-check"] as const;

/** The name of a sample handler. */
export type SampleName = (typeof SAMPLE_NAMES)[number];

type Spec = {
  sampleRequest: Record<string, unknown>;
  requestSchema: Record<string, unknown>;
  responseSchema: Record<string, unknown>;
  pricing: { model: "metered"; base: string; perKB: string; max: string };
  computeMultiplier: number;
  maxResponseBytes: number;
  card: { x402: Record<string, unknown> } & Record<string, unknown>;
};

/**
 * A `POST /deployments` body for one of the samples: its handler source, schemas, pricing and card template, with the
 * card's asset and escrow set to the given addresses (the template holds the zero address there).
 * @example await postJson(`${host}/deployments`, sampleDeployment('echo', { creator, asset, escrow }), { authorization })
 */
export function sampleDeployment(
  name: SampleName,
  { slug = name, creator, asset, escrow }: { slug?: string; creator: string; asset: string; escrow: string },
) {
  const source = readFileSync(new URL(`./${name}.mjs`, import.meta.url), "utf8");
  const spec = JSON.parse(readFileSync(new URL(`./${name}.json`, import.meta.url), "utf8")) as Spec;
  return {
    slug,
    creator,
    source,
    requestSchema: spec.requestSchema,
    sampleRequest: spec.sampleRequest,
    responseSchema: spec.responseSchema,
    card: { ...spec.card, x402: { ...spec.card.x402, asset, escrow } },
    pricing: spec.pricing,
    computeMultiplier: spec.computeMultiplier,
    maxResponseBytes: spec.maxResponseBytes,
  };
}
