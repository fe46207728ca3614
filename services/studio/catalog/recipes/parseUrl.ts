import type { Recipe } from "../recipe.ts";
import { objectSchema } from "../recipe.ts";

const s = { type: "string" };

/** A URL split into its WHATWG parts, with the query as key/value pairs. */
export const parseUrlRecipe: Recipe = {
  id: "parse-url",
  title: "URL parser",
  description: "Parse a URL into its parts: protocol, host, port, path, query parameters and fragment",
  synonyms: ["url", "parse", "parser", "uri", "query", "parameters", "hostname", "path", "split", "components"],
  category: "web",
  tags: ["url", "parse"],
  parameters: () => ({}),
  build: () => ({
    name: "URL parser",
    description: "Splits a URL into WHATWG parts (no request is made); an unparseable URL is valid: false.",
    compute: String.raw`
async function compute(input) {
  let url;
  try {
    url = new URL(input.url);
  } catch {
    return { valid: false };
  }
  return {
    valid: true,
    protocol: url.protocol, hostname: url.hostname, port: url.port, pathname: url.pathname,
    search: url.search, hash: url.hash, origin: url.origin,
    query: [...url.searchParams].map(([key, value]) => ({ key, value })),
  };
}`,
    requestSchema: objectSchema({ url: { type: "string", maxLength: 4_000 } }),
    responseSchema: {
      type: "object",
      additionalProperties: false,
      required: ["valid"],
      properties: {
        valid: { type: "boolean" },
        protocol: s,
        hostname: s,
        port: s,
        pathname: s,
        search: s,
        hash: s,
        origin: s,
        query: { type: "array", items: objectSchema({ key: s, value: s }) },
      },
    },
    examples: [
      {
        input: { url: "https://example.com:8080/a/b?x=1&y=two#top" },
        output: {
          valid: true,
          protocol: "https:",
          hostname: "example.com",
          port: "8080",
          pathname: "/a/b",
          search: "?x=1&y=two",
          hash: "#top",
          origin: "https://example.com:8080",
          query: [
            { key: "x", value: "1" },
            { key: "y", value: "two" },
          ],
        },
      },
      {
        input: { url: "HTTP://Example.COM" },
        output: {
          valid: true,
          protocol: "http:",
          hostname: "example.com",
          port: "",
          pathname: "/",
          search: "",
          hash: "",
          origin: "http://example.com",
          query: [],
        },
      },
      { input: { url: "not a url" }, output: { valid: false } },
    ],
    edgeCases: [{ input: { url: "" }, note: "the empty string is no URL" }],
    maxResponseBytes: 40_000,
  }),
};
