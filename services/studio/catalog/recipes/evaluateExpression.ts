import type { Recipe } from "../recipe.ts";
import { objectSchema, text } from "../recipe.ts";

/** A safe arithmetic-expression evaluator (a recursive-descent parser, no `eval`). */
export const evaluateExpressionRecipe: Recipe = {
  id: "calculator",
  title: "Arithmetic expression evaluator",
  description: "Evaluate an arithmetic math expression such as (2 + 3) * 4 safely and return the number",
  synonyms: ["calculate", "calculator", "evaluate", "math", "arithmetic", "expression", "formula", "compute", "sum"],
  category: "math",
  tags: ["math", "calculator", "expression"],
  parameters: () => ({}),
  build: () => ({
    name: "Calculator",
    description:
      "Evaluates + - * / % ^ (right-associative), parentheses, unary minus, pi, e, sqrt, abs, min, max, round, floor, ceil, ln, log10; errors as data.",
    compute: String.raw`
const FUNCTIONS = { sqrt: Math.sqrt, abs: Math.abs, min: Math.min, max: Math.max, round: Math.round, floor: Math.floor, ceil: Math.ceil, ln: Math.log, log10: Math.log10 };
const CONSTANTS = { pi: Math.PI, e: Math.E };
function evaluate(source) {
  const tokens = source.match(/\s+|\d+(?:\.\d*)?(?:[eE][-+]?\d+)?|\.\d+(?:[eE][-+]?\d+)?|[a-z][a-z0-9]*|[-+*/%^(),]|./gi) || [];
  const list = tokens.filter((t) => !/^\s+$/.test(t));
  let i = 0, depth = 0;
  const fail = (m) => { throw new BadInput(m); };
  const show = (t) => JSON.stringify(String(t).slice(0, 20));
  const peek = () => list[i];
  const expect = (t) => { if (list[i] !== t) fail("expected " + t + (list[i] === undefined ? " at the end" : " before " + show(list[i]))); i++; };
  function expression() { let v = term(); while (peek() === "+" || peek() === "-") { const op = list[i++]; const r = term(); v = op === "+" ? v + r : v - r; } return v; }
  function term() { let v = unary(); while (peek() === "*" || peek() === "/" || peek() === "%") { const op = list[i++]; const r = unary(); v = op === "*" ? v * r : op === "/" ? v / r : v % r; } return v; }
  function unary() { if (peek() === "-") { i++; return -unary(); } if (peek() === "+") { i++; return unary(); } return power(); }
  function power() { const b = primary(); if (peek() === "^") { i++; return Math.pow(b, unary()); } return b; }
  function primary() {
    const t = list[i++];
    if (t === undefined) fail("the expression ends too early");
    if (/^[\d.]/.test(t)) { const n = Number(t); if (!Number.isFinite(n)) fail("bad number " + show(t)); return n; }
    if (t === "(") { if (++depth > 100) fail("too deeply nested"); const v = expression(); expect(")"); depth--; return v; }
    const name = t.toLowerCase();
    if (Object.prototype.hasOwnProperty.call(CONSTANTS, name)) return CONSTANTS[name];
    if (Object.prototype.hasOwnProperty.call(FUNCTIONS, name)) {
      expect("(");
      if (++depth > 100) fail("too deeply nested");
      const args = [expression()];
      while (peek() === ",") { i++; args.push(expression()); }
      expect(")");
      depth--;
      return FUNCTIONS[name](...args);
    }
    return fail("unexpected " + show(t));
  }
  const v = expression();
  if (i < list.length) fail("unexpected " + show(list[i]));
  return v;
}
async function compute(input) {
  try {
    const value = evaluate(input.expression);
    if (!Number.isFinite(value)) return { valid: false, value: null, error: "the result is not a finite number" };
    return { valid: true, value: Object.is(value, -0) ? 0 : value, error: null };
  } catch (error) {
    if (error instanceof BadInput) return { valid: false, value: null, error: error.message };
    if (error instanceof RangeError) return { valid: false, value: null, error: "the expression is too complex" };
    throw error;
  }
}`,
    requestSchema: objectSchema({ expression: text(1_000, 1) }),
    responseSchema: objectSchema({
      valid: { type: "boolean" },
      value: { type: ["number", "null"] },
      error: { type: ["string", "null"] },
    }),
    examples: [
      { input: { expression: "(2 + 3) * 4" }, output: { valid: true, value: 20, error: null } },
      { input: { expression: "2 ^ 3 ^ 2 - sqrt(16)" }, output: { valid: true, value: 508, error: null } },
      {
        input: { expression: "1 / 0" },
        output: { valid: false, value: null, error: "the result is not a finite number" },
      },
    ],
    edgeCases: [{ input: { expression: "2 +" }, note: "a syntax error is answered as data" }],
    maxResponseBytes: 1_024,
  }),
};
