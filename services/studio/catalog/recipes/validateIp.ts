import type { Recipe } from "../recipe.ts";
import { objectSchema } from "../recipe.ts";

/** Whether a text is an IPv4 or IPv6 address, its version, canonical form and kind. */
export const validateIpRecipe: Recipe = {
  id: "ip-address-validate",
  title: "IP address check",
  description:
    "Check whether a text is a valid IPv4 or IPv6 address, its version, and whether it is private or loopback",
  synonyms: ["ip", "ipv4", "ipv6", "address", "validate", "check", "private", "loopback", "public", "canonical"],
  category: "validation",
  tags: ["ip", "network", "validation"],
  parameters: () => ({}),
  build: () => ({
    name: "IP address check",
    description:
      "Whether a text is a dotted-quad IPv4 address (no leading zeros) or an IPv6 address (RFC 4291, embedded IPv4 allowed, no zone); its canonical form (RFC 5952) and scope: loopback, private, link-local, multicast, unspecified or public.",
    compute: String.raw`
function v4(text) {
  const parts = text.split(".");
  if (parts.length !== 4 || !parts.every((p) => /^(?:0|[1-9][0-9]{0,2})$/.test(p) && Number(p) <= 255)) return null;
  return parts.map(Number);
}
function v6(text) {
  let tail = text;
  const last = text.lastIndexOf(":");
  if (text.slice(last + 1).includes(".")) {
    const four = v4(text.slice(last + 1));
    if (!four) return null;
    tail = text.slice(0, last + 1) + ((four[0] << 8) | four[1]).toString(16) + ":" + ((four[2] << 8) | four[3]).toString(16);
  }
  const halves = tail.split("::");
  if (halves.length > 2) return null;
  const parse = (s) => (s === "" ? [] : s.split(":"));
  const head = parse(halves[0]), rest = halves.length === 2 ? parse(halves[1]) : [];
  if (![...head, ...rest].every((g) => /^[0-9a-fA-F]{1,4}$/.test(g))) return null;
  const missing = 8 - head.length - rest.length;
  if (halves.length === 2 ? missing < 1 : missing !== 0) return null;
  return [...head, ...Array(halves.length === 2 ? missing : 0).fill("0"), ...rest].map((g) => parseInt(g, 16));
}
function canonical6(g) {
  if (g.slice(0, 5).every((x) => x === 0) && g[5] === 0xffff) return "::ffff:" + [g[6] >> 8, g[6] & 255, g[7] >> 8, g[7] & 255].join(".");
  let best = -1, bestLength = 1;
  for (let i = 0; i < 8; ) {
    if (g[i] !== 0) { i++; continue; }
    let j = i;
    while (j < 8 && g[j] === 0) j++;
    if (j - i > bestLength) { best = i; bestLength = j - i; }
    i = j;
  }
  const hex = g.map((x) => x.toString(16));
  if (best < 0) return hex.join(":");
  return hex.slice(0, best).join(":") + "::" + hex.slice(best + bestLength).join(":");
}
function scope4([a, b]) {
  if (a === 127) return "loopback";
  if (a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168)) return "private";
  if (a === 169 && b === 254) return "link-local";
  if (a >= 224 && a <= 239) return "multicast";
  if (a === 0) return "unspecified";
  return "public";
}
function scope6(g) {
  if (g.every((x) => x === 0)) return "unspecified";
  if (g.slice(0, 7).every((x) => x === 0) && g[7] === 1) return "loopback";
  if (g.slice(0, 5).every((x) => x === 0) && g[5] === 0xffff) return scope4([g[6] >> 8, g[6] & 255]);
  if ((g[0] & 0xfe00) === 0xfc00) return "private";
  if ((g[0] & 0xffc0) === 0xfe80) return "link-local";
  if ((g[0] & 0xff00) === 0xff00) return "multicast";
  return "public";
}
async function compute(input) {
  const four = v4(input.address);
  if (four) return { valid: true, version: 4, canonical: four.join("."), scope: scope4(four) };
  const six = input.address.includes(":") ? v6(input.address) : null;
  if (six) return { valid: true, version: 6, canonical: canonical6(six), scope: scope6(six) };
  return { valid: false, version: null, canonical: null, scope: null };
}`,
    requestSchema: objectSchema({ address: { type: "string", maxLength: 64 } }),
    responseSchema: objectSchema({
      valid: { type: "boolean" },
      version: { enum: [4, 6, null] },
      canonical: { type: ["string", "null"] },
      scope: { enum: ["loopback", "private", "link-local", "multicast", "unspecified", "public", null] },
    }),
    examples: [
      {
        input: { address: "192.168.1.20" },
        output: { valid: true, version: 4, canonical: "192.168.1.20", scope: "private" },
      },
      {
        input: { address: "2001:0DB8:0000:0000:0000:ff00:0042:8329" },
        output: { valid: true, version: 6, canonical: "2001:db8::ff00:42:8329", scope: "public" },
      },
      { input: { address: "::1" }, output: { valid: true, version: 6, canonical: "::1", scope: "loopback" } },
      { input: { address: "256.1.1.1" }, output: { valid: false, version: null, canonical: null, scope: null } },
      {
        input: { address: "::ffff:10.0.0.1" },
        output: { valid: true, version: 6, canonical: "::ffff:10.0.0.1", scope: "private" },
      },
    ],
    edgeCases: [{ input: { address: "1::2::3" }, note: "two :: are not an address" }],
    maxResponseBytes: 256,
  }),
};
