import type { Recipe } from "../recipe.ts";
import { objectSchema } from "../recipe.ts";

/** Whether a text is a UUID, with its version and variant. */
export const validateUuidRecipe: Recipe = {
  id: "uuid-validate",
  title: "UUID check",
  description: "Check whether a text is a valid UUID or GUID and return its version and variant",
  synonyms: ["uuid", "guid", "validate", "check", "version", "variant", "rfc4122", "rfc9562", "identifier", "format"],
  category: "validation",
  tags: ["uuid", "validation"],
  parameters: () => ({}),
  build: () => ({
    name: "UUID check",
    description:
      "Whether a text is a UUID (8-4-4-4-12 hex digits, optionally in braces or as a urn:uuid: URN, either case); its lower-case canonical form, version (0 to 15) and variant (RFC 9562, NCS, Microsoft or future). The nil and max UUIDs are valid.",
    compute: String.raw`
const FORM = /^(urn:uuid:)?(\{)?([0-9a-f]{8})-([0-9a-f]{4})-([0-9a-f]{4})-([0-9a-f]{4})-([0-9a-f]{12})(\})?$/i;
async function compute(input) {
  const m = FORM.exec(input.uuid);
  if (!m || !m[2] !== !m[8] || (m[1] && m[2])) return { valid: false, canonical: null, version: null, variant: null };
  const canonical = m.slice(3, 8).join("-").toLowerCase();
  const v = parseInt(canonical[19], 16);
  const variant = v < 8 ? "ncs" : v < 12 ? "rfc9562" : v < 14 ? "microsoft" : "future";
  return { valid: true, canonical, version: parseInt(canonical[14], 16), variant };
}`,
    requestSchema: objectSchema({ uuid: { type: "string", maxLength: 64 } }),
    responseSchema: objectSchema({
      valid: { type: "boolean" },
      canonical: {
        type: ["string", "null"],
        pattern: "^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$",
      },
      version: { type: ["integer", "null"], minimum: 0, maximum: 15 },
      variant: { enum: ["ncs", "rfc9562", "microsoft", "future", null] },
    }),
    examples: [
      {
        input: { uuid: "123E4567-E89B-12D3-A456-426614174000" },
        output: { valid: true, canonical: "123e4567-e89b-12d3-a456-426614174000", version: 1, variant: "rfc9562" },
      },
      {
        input: { uuid: "{f47ac10b-58cc-4372-a567-0e02b2c3d479}" },
        output: { valid: true, canonical: "f47ac10b-58cc-4372-a567-0e02b2c3d479", version: 4, variant: "rfc9562" },
      },
      { input: { uuid: "not-a-uuid" }, output: { valid: false, canonical: null, version: null, variant: null } },
    ],
    edgeCases: [{ input: { uuid: "00000000-0000-0000-0000-000000000000" }, note: "the nil UUID" }],
    maxResponseBytes: 160,
  }),
};
