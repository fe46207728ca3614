import type { Recipe } from "../recipe.ts";
import { objectSchema, text } from "../recipe.ts";

/** CSV (RFC 4180, header row) parsed into JSON rows. */
export const csvToJsonRecipe: Recipe = {
  id: "csv-to-json",
  title: "CSV to JSON",
  description: "Convert CSV text with a header row into a JSON array of row objects",
  synonyms: [
    "csv",
    "json",
    "convert",
    "parse",
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
  tags: ["csv", "json", "convert"],
  prefer: /\bcsv\b.*\b(?:to|into|as)\b.*\bjson\b|\bparse\b.*\bcsv\b/i,
  parameters: () => ({}),
  build: () => ({
    name: "CSV to JSON",
    description:
      "Parses CSV (RFC 4180: quoted fields, doubled quotes, CRLF or LF) whose first row names the columns into row objects of strings.",
    compute: String.raw`
function parse(csv) {
  const records = [];
  let row = [], field = "", quoted = false, i = 0;
  while (i < csv.length) {
    const c = csv[i];
    if (quoted) {
      if (c === '"' && csv[i + 1] === '"') { field += '"'; i += 2; continue; }
      if (c === '"') { quoted = false; i++; continue; }
      field += c; i++; continue;
    }
    if (c === '"' && field === "") { quoted = true; i++; continue; }
    if (c === ",") { row.push(field); field = ""; i++; continue; }
    if (c === "\r" || c === "\n") {
      row.push(field); records.push(row); row = []; field = "";
      i += c === "\r" && csv[i + 1] === "\n" ? 2 : 1; continue;
    }
    field += c; i++;
  }
  if (field !== "" || row.length > 0) { row.push(field); records.push(row); }
  return records;
}
async function compute(input) {
  const records = parse(input.csv);
  const columns = records.length ? records[0] : [];
  const rows = records.slice(1).filter((r) => !(r.length === 1 && r[0] === "")).map((r) => {
    const row = Object.create(null);
    columns.forEach((name, j) => { row[name] = r[j] === undefined ? "" : r[j]; });
    return row;
  });
  return { columns, rows };
}`,
    requestSchema: objectSchema({ csv: text(100_000) }),
    responseSchema: objectSchema({
      columns: { type: "array", items: { type: "string" } },
      rows: { type: "array", items: { type: "object", additionalProperties: { type: "string" } } },
    }),
    examples: [
      {
        input: { csv: "name,age\nAnn,31\nBob,27\n" },
        output: {
          columns: ["name", "age"],
          rows: [
            { name: "Ann", age: "31" },
            { name: "Bob", age: "27" },
          ],
        },
      },
      {
        input: { csv: 'a,b\r\n"x, y","say ""hi"""' },
        output: { columns: ["a", "b"], rows: [{ a: "x, y", b: 'say "hi"' }] },
      },
      { input: { csv: "" }, output: { columns: [], rows: [] } },
    ],
    edgeCases: [{ input: { csv: "a,b\n1" }, note: "a short row fills missing cells with empty strings" }],
    maxResponseBytes: 400_000,
  }),
};
