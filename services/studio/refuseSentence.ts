import { marketplaceEnvSchema } from "../marketplace/loadMarketplaceConfig.ts";
import { blockedTermsRule } from "../marketplace/publish/moderation.ts";

/** Longest sentence the studio reads. */
export const MAX_SENTENCE_LENGTH = 500;

/** What the sandbox forbids, each with the reason a creator is shown. */
const FORBIDDEN: { pattern: RegExp; code: string; reason: string }[] = [
  {
    pattern:
      /\b(?:fetch\w*|download\w*|crawl\w*|upload\w*|internet|online|web ?pages?|websites?|http requests?|call(?:s|ing)? (?:an? |the )?(?:external |remote |third[- ]party )?(?:api|service|server)s?|send(?:s|ing)? (?:an? )?(?:e-?mails?|sms|texts? messages?|requests?|notifications?)|live (?:prices?|weather|rates?|stock)|current (?:weather|prices?|exchange rates?|stock))\b/i,
    code: "forbidden_network",
    reason: "the sandbox has no outbound network: an endpoint can only compute on the request it receives",
  },
  {
    pattern:
      /\b(?:environment variables?|env vars?|credentials?|passwords?|private keys?|api keys?|access tokens?|secrets?(?! keys?\b))\b/i,
    code: "forbidden_secrets",
    reason: "a handler holds no secrets: its environment is empty and nothing it is given is kept",
  },
  {
    pattern:
      /\b(?:read|write|save|store|delete|remove|list|open|access|load)\w* (?:(?:a|an|the|local|server|my|some|from|to|on|in|into|its|of)\s+){0,3}(?:files?|disks?|file ?systems?|director(?:y|ies)|folders?|databases?)\b|\bfile ?system\b/i,
    code: "forbidden_files",
    reason: "the sandbox has no file system or storage: an endpoint answers each request from that request alone",
  },
  {
    pattern:
      /\b(?:min(?:e|es|ing|er)\b.{0,40}\b(?:crypto\w*|bitcoins?|monero|ethereum|coins?|hashes)|cryptomining|cryptojacking|monero)\b/i,
    code: "forbidden_mining",
    reason: "mining is not allowed in the sandbox",
  },
];

const QUESTION = /^(?:what|who|when|where|why|how|is|are|do|does|did|can|could|will|would|should)\b[^.]*\?\s*$/i;

/** A refusal of a sentence: a code and the reason. */
export type Refusal = { code: string; reason: string };

const moderation = blockedTermsRule(marketplaceEnvSchema.shape.MODERATION_BLOCKLIST.parse(undefined).split(","));

/**
 * Why the studio refuses a sentence before any code exists, or undefined: empty, over 500 characters, not a
 * description of an endpoint, asking for what the sandbox forbids (outbound network, secrets, files, mining), or
 * refused by the marketplace's moderation blocklist.
 * @example refuseSentence("Download the weather for Paris") // { code: "forbidden_network", … }
 */
export function refuseSentence(sentence: string): Refusal | undefined {
  const text = sentence.trim();
  if (text === "") return { code: "empty_sentence", reason: "describe the endpoint in one sentence" };
  if (text.length > MAX_SENTENCE_LENGTH)
    return {
      code: "sentence_too_long",
      reason: `the sentence is ${text.length} characters; at most ${MAX_SENTENCE_LENGTH}`,
    };
  const words = text.match(/[\p{L}\p{N}]+/gu) ?? [];
  if (words.length < 3 || QUESTION.test(text))
    return {
      code: "not_an_endpoint",
      reason:
        'this does not describe an endpoint: say what it takes and what it returns, e.g. "Return the SHA-256 hex digest of a text"',
    };
  for (const rule of FORBIDDEN) if (rule.pattern.test(text)) return { code: rule.code, reason: rule.reason };
  const moderated = moderation({ slug: "", category: "tools", name: text, description: text, skills: [] });
  if (moderated) return { code: "moderation_refused", reason: moderated.replace(/^name /, "the sentence ") };
  return undefined;
}
