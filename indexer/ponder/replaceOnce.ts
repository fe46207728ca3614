/**
 * `source` with `original` replaced by `replacement` (and `prefix` put first): the one edit of a Ponder patch. Returns
 * `source` as it is when it already holds `replacement` (patched before), and throws when `original` is not in it
 * exactly once, naming `patch`, so that a Ponder upgrade cannot run silently unpatched or patched twice.
 * @example replaceOnce(source, { patch: "bloomMemo.ts", what: "isInBloom", original, replacement })
 */
export function replaceOnce(
  source: string,
  p: { patch: string; what: string; original: string; replacement: string; prefix?: string },
): string {
  if (source.includes(p.replacement)) return source;
  const at = source.indexOf(p.original);
  if (at < 0 || source.indexOf(p.original, at + 1) >= 0)
    throw new Error(
      `indexer/ponder/${p.patch}: Ponder's ${p.what} is not the 0.16 code it patches; check the installed Ponder and drop or update the patch`,
    );
  return (p.prefix ?? "") + source.replace(p.original, p.replacement);
}
