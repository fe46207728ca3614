import { z } from "zod";
import { slugSchema } from "../protocol/schemas/indexRecord.ts";
import { amountSchema } from "../protocol/schemas/primitives.ts";

const jsonObject = z.record(z.string(), z.unknown());

/** An endpoint contract: everything verify, deploy and publish need, before any code exists. */
export const endpointContractSchema = z.strictObject({
  slug: slugSchema,
  name: z.string().min(1).max(100),
  description: z.string().min(1).max(2_000),
  category: z.string().regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/),
  tags: z.array(z.string().min(1).max(40)).min(1).max(16),
  requestSchema: jsonObject,
  responseSchema: jsonObject,
  examples: z.array(z.strictObject({ input: jsonObject, output: z.unknown() })).min(3),
  edgeCases: z.array(z.strictObject({ input: jsonObject, note: z.string() })),
  maxResponseBytes: z.int().positive().max(4_194_304),
  price: z.strictObject({ base: amountSchema, perKB: amountSchema, max: amountSchema }),
  /** Where the contract came from: the provider (and its model), or the catalog's recipe, parameters and match score. */
  origin: z.strictObject({
    provider: z.string(),
    model: z.string().optional(),
    recipe: z.string().optional(),
    parameters: z.record(z.string(), z.string()).optional(),
    score: z.number().optional(),
    /** Words of the sentence the catalog's recipe does not explain, listed anyway because the creator said so. */
    accepted: z.array(z.string()).optional(),
  }),
});

/** A validated endpoint contract. */
export type EndpointContract = z.output<typeof endpointContractSchema>;

/** One failed verification check, as the code writer receives it for repair. */
export type VerifyFailure = {
  check: string;
  input?: unknown;
  expected?: unknown;
  actual?: unknown;
  error?: string;
};

/** Writes a contract from a sentence and handler source from a contract; a repair round passes the failures. */
export type CodeWriter = {
  name: string;
  specify(sentence: string): Promise<EndpointContract>;
  write(contract: EndpointContract, failures: readonly VerifyFailure[], previous?: string): Promise<string>;
};
