/** Handler source shared by the colour recipes: `parseColour(text)` reads #rgb, #rrggbb or rgb(r, g, b) as [r, g, b], else null. */
export const COLOUR_SOURCE = String.raw`
function parseColour(text) {
  const t = text.trim().toLowerCase();
  let m = /^#([0-9a-f]{3})$/.exec(t);
  if (m) return m[1].split("").map((c) => parseInt(c + c, 16));
  m = /^#([0-9a-f]{6})$/.exec(t);
  if (m) return [0, 2, 4].map((i) => parseInt(m[1].slice(i, i + 2), 16));
  m = /^rgb\(\s*(\d{1,3})\s*,\s*(\d{1,3})\s*,\s*(\d{1,3})\s*\)$/.exec(t);
  if (m) { const v = m.slice(1).map(Number); return v.every((x) => x <= 255) ? v : null; }
  return null;
}`;
