import type { Recipe } from "../recipe.ts";
import { objectSchema } from "../recipe.ts";

const cell = { type: ["string", "number", "boolean", "null"] };

/** JSON row objects written as CSV with a header row. */
export const jsonToCsvRecipe: Recipe = {
  id: "json-to-csv",
  title: "JSON to CSV",
  description: "Convert a JSON array of row objects into CSV text with a header row",
  synonyms: [
    "json",
    "csv",
    "convert",
    "export",
    "spreadsheet",
    "table",
    "rows",
    "comma",
    "separated",
    "records",
    "record",
    "file",
  ],
  category: "data",
  tags: ["json", "csv", "convert"],
  prefer: /\bjson\b.*\b(?:to|into|as)\b.*\bcsv\b/i,
  parameters: () => ({}),
  build: () => ({
    name: "JSON to CSV",
    description:
      "Writes row objects as RFC 4180 CSV: the header is the union of keys in order of appearance, fields quoted when needed, null as empty.",
    compute: String.raw`
function field(value) {
  const s = value === null || value === undefined ? "" : String(value);
  return /[",\r\n]/.test(s) ? '"' + s.replace(/"/g, '""') + '"' : s;
}
async function compute(input) {
  const columns = [];
  for (const row of input.rows) for (const key of Object.keys(row)) if (!columns.includes(key)) columns.push(key);
  const lines = [columns.map(field).join(",")];
  for (const row of input.rows) lines.push(columns.map((c) => field(Object.prototype.hasOwnProperty.call(row, c) ? row[c] : null)).join(","));
  return { csv: columns.length ? lines.join("\n") + "\n" : "", columns: columns.length, rows: input.rows.length };
}`,
    requestSchema: objectSchema({
      rows: {
        type: "array",
        maxItems: 5_000,
        items: { type: "object", maxProperties: 100, additionalProperties: cell },
      },
    }),
    responseSchema: objectSchema({
      csv: { type: "string" },
      columns: { type: "integer", minimum: 0 },
      rows: { type: "integer", minimum: 0 },
    }),
    examples: [
      {
        input: {
          rows: [
            { name: "Ann", age: 31 },
            { name: "Bob", age: 27 },
          ],
        },
        output: { csv: "name,age\nAnn,31\nBob,27\n", columns: 2, rows: 2 },
      },
      {
        input: { rows: [{ a: "x, y", b: 'say "hi"' }, { c: null }] },
        output: { csv: 'a,b,c\n"x, y","say ""hi""",\n,,\n', columns: 3, rows: 2 },
      },
      { input: { rows: [] }, output: { csv: "", columns: 0, rows: 0 } },
    ],
    edgeCases: [{ input: { rows: [{}] }, note: "rows without keys give no columns" }],
    maxResponseBytes: 400_000,
  }),
};
