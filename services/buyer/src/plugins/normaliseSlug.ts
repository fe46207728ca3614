/** Longest slug a plugin name is built from, so `service-<slug>-<suffix>` stays readable. */
export const MAX_SLUG_LENGTH = 48;

/**
 * Turns a display name or slug into lowercase words of a-z and 0-9 joined by single dashes (accents dropped, at most
 * {@link MAX_SLUG_LENGTH} characters); a name with nothing left becomes `endpoint`.
 * @example normaliseSlug("Text Stats (v2)") // "text-stats-v2"
 */
export function normaliseSlug(name: string): string {
  const words = name
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
  let slug = "";
  for (const word of words) {
    const next = slug ? `${slug}-${word}` : word;
    if (next.length > MAX_SLUG_LENGTH) break;
    slug = next;
  }
  return slug || words[0]?.slice(0, MAX_SLUG_LENGTH) || "endpoint";
}
