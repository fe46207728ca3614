import type { Recipe } from "../recipe.ts";
import { objectSchema, pickParameter, text } from "../recipe.ts";

const CASES: [RegExp, string][] = [
  [/camel/i, "camel"],
  [/pascal/i, "pascal"],
  [/snake/i, "snake"],
  [/kebab|dash/i, "kebab"],
  [/constant|screaming/i, "constant"],
  [/title/i, "title"],
  [/upper|capital|\bcaps\b/i, "upper"],
  [/lower/i, "lower"],
];

const FORMS = ["upper", "lower", "title", "camel", "pascal", "snake", "kebab", "constant"];

/** Case transforms of a text; the form named in the sentence is `result`. */
export const changeCaseRecipe: Recipe = {
  id: "change-case",
  title: "Case transform",
  description: "Convert a text to camelCase, snake_case, kebab-case, PascalCase, Title Case, upper or lower case",
  synonyms: [
    "case",
    "camelcase",
    "snake_case",
    "kebab-case",
    "uppercase",
    "lowercase",
    "titlecase",
    "capitalize",
    "convert",
    "caps",
    "variable",
    "name",
    "identifier",
    "pascalcase",
    "pascal",
    "constant",
    "screaming",
    "camel",
    "snake",
    "kebab",
    "title",
    "word",
    "words",
  ],
  category: "text",
  tags: ["case", "text", "transform"],
  parameters: (sentence) => ({ case: pickParameter(sentence, CASES, "title") }),
  build: (p) => {
    const form = p.case ?? "title";
    const example = (input: string, forms: string[]) => {
      const all = Object.fromEntries(FORMS.map((f, i) => [f, forms[i]]));
      return { input: { text: input }, output: { result: all[form], ...all } };
    };
    return {
      name: `${form[0]?.toUpperCase()}${form.slice(1)} case`,
      description: `Converts a text to ${form} case (and returns every other case form beside it).`,
      compute: String.raw`
async function compute(input) {
  const words = (input.text.replace(/(\p{Ll})(\p{Lu})/gu, "$1 $2").match(/[\p{L}\p{N}]+/gu) || []).map((w) => w.toLowerCase());
  const cap = (w) => w.charAt(0).toUpperCase() + w.slice(1);
  const forms = {
    upper: input.text.toUpperCase(),
    lower: input.text.toLowerCase(),
    title: words.map(cap).join(" "),
    camel: words.map((w, i) => (i ? cap(w) : w)).join(""),
    pascal: words.map(cap).join(""),
    snake: words.join("_"),
    kebab: words.join("-"),
    constant: words.join("_").toUpperCase(),
  };
  return { result: forms[PARAMS.case], ...forms };
}`,
      requestSchema: objectSchema({ text: text(10_000) }),
      responseSchema: objectSchema(Object.fromEntries(["result", ...FORMS].map((f) => [f, { type: "string" }]))),
      examples: [
        example("hello world", [
          "HELLO WORLD",
          "hello world",
          "Hello World",
          "helloWorld",
          "HelloWorld",
          "hello_world",
          "hello-world",
          "HELLO_WORLD",
        ]),
        example("userId value", [
          "USERID VALUE",
          "userid value",
          "User Id Value",
          "userIdValue",
          "UserIdValue",
          "user_id_value",
          "user-id-value",
          "USER_ID_VALUE",
        ]),
        example("", ["", "", "", "", "", "", "", ""]),
      ],
      edgeCases: [{ input: { text: "  --  " }, note: "no words gives empty forms" }],
      maxResponseBytes: 200_000,
    };
  },
};
