import type { Recipe } from "../recipe.ts";
import { objectSchema } from "../recipe.ts";

/** Whether a text is a syntactically valid email address (no lookup: the sandbox has no network). */
export const validateEmailRecipe: Recipe = {
  id: "email-validate",
  title: "Email address check",
  description: "Check whether an email address is valid in syntax and split it into its local part and domain",
  synonyms: ["email", "address", "validate", "check", "syntax", "format", "well-formed", "mailbox", "domain"],
  category: "validation",
  tags: ["email", "validation"],
  parameters: () => ({}),
  build: () => ({
    name: "Email address check",
    description:
      "Whether an address has a dot-atom local part (at most 64 characters) and a domain of dot-separated labels with a letter TLD (at most 253); syntax only, nothing is looked up.",
    compute: String.raw`
const LOCAL = /^[A-Za-z0-9!#$%&'*+/=?^_\x60{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_\x60{|}~-]+)*$/;
const LABEL = /^(?!-)[A-Za-z0-9-]{1,63}(?<!-)$/;
async function compute(input) {
  const at = input.email.lastIndexOf("@");
  const local = input.email.slice(0, at), domain = input.email.slice(at + 1);
  const labels = domain.split(".");
  let reason = null;
  if (at < 1) reason = "no local part before an @";
  else if (local.length > 64 || !LOCAL.test(local)) reason = "the local part is not a dot-atom of at most 64 characters";
  else if (domain.length > 253 || labels.length < 2 || !labels.every((l) => LABEL.test(l))) reason = "the domain is not dot-separated labels of letters, digits and hyphens";
  else if (!/^[A-Za-z]{2,63}$/.test(labels[labels.length - 1])) reason = "the top-level domain is not 2 to 63 letters";
  return reason ? { valid: false, local: null, domain: null, reason } : { valid: true, local, domain: domain.toLowerCase(), reason: null };
}`,
    requestSchema: objectSchema({ email: { type: "string", maxLength: 320 } }),
    responseSchema: objectSchema({
      valid: { type: "boolean" },
      local: { type: ["string", "null"] },
      domain: { type: ["string", "null"] },
      reason: { type: ["string", "null"] },
    }),
    examples: [
      {
        input: { email: "Jane.Doe+news@Example.co.uk" },
        output: { valid: true, local: "Jane.Doe+news", domain: "example.co.uk", reason: null },
      },
      {
        input: { email: "jane..doe@example.com" },
        output: {
          valid: false,
          local: null,
          domain: null,
          reason: "the local part is not a dot-atom of at most 64 characters",
        },
      },
      {
        input: { email: "jane@localhost" },
        output: {
          valid: false,
          local: null,
          domain: null,
          reason: "the domain is not dot-separated labels of letters, digits and hyphens",
        },
      },
      {
        input: { email: "@example.com" },
        output: { valid: false, local: null, domain: null, reason: "no local part before an @" },
      },
    ],
    edgeCases: [{ input: { email: "" }, note: "an empty address" }],
    maxResponseBytes: 1_024,
  }),
};
