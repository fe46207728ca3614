// JSON check: whether a string is valid JSON; if so its type, nesting depth, number of values and top-level keys,
// and a canonical form (object keys sorted); if not, the parser's message.
function measure(value, depth = 1) {
  if (value === null || typeof value !== "object") return { depth, values: 1 };
  const children = Array.isArray(value) ? value : Object.values(value);
  let deepest = depth;
  let values = 1;
  for (const child of children) {
    const m = measure(child, depth + 1);
    deepest = Math.max(deepest, m.depth);
    values += m.values;
  }
  return { depth: deepest, values };
}

function canonical(value) {
  if (Array.isArray(value)) return value.map(canonical);
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((key) => [key, canonical(value[key])]),
  );
}

export default {
  async fetch(request) {
    const { json } = await request.json();
    let value;
    try {
      value = JSON.parse(json);
    } catch (error) {
      return Response.json({ valid: false, error: String(error.message).slice(0, 200) });
    }
    const type = value === null ? "null" : Array.isArray(value) ? "array" : typeof value;
    const { depth, values } = measure(value);
    return Response.json({
      valid: true,
      type,
      depth,
      values,
      keys: type === "object" ? Object.keys(value).slice(0, 100) : [],
      canonical: JSON.stringify(canonical(value)),
    });
  },
};
