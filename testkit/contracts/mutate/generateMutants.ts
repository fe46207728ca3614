import { createRequire } from "node:module";

/** One mutant: `source` with the characters [start, end) replaced by `replacement`. */
export type Mutant = {
  /** `File.sol:line:column operator original -> replacement`: stable while the source does not change. */
  id: string;
  file: string;
  line: number;
  column: number;
  operator: MutationOperator;
  original: string;
  replacement: string;
  start: number;
  end: number;
};

/** The kinds of change, each a bug an auditor plants. */
export const MUTATION_OPERATORS = [
  "comparison",
  "logical",
  "arithmetic",
  "rounding",
  "condition-removed",
  "require-removed",
  "modifier-removed",
  "write-removed",
  "emit-removed",
  "arguments-swapped",
  "boolean",
] as const;

/** One of MUTATION_OPERATORS. */
export type MutationOperator = (typeof MUTATION_OPERATORS)[number];

type Range = [number, number];
type Node = { type: string; range?: Range; loc?: { start: { line: number; column: number } }; [key: string]: unknown };
type Parser = {
  parse: (source: string, options: { loc: boolean; range: boolean }) => Node;
  visit: (node: Node, visitor: Record<string, (node: Node, parent?: Node) => unknown>) => void;
};

// The parser prettier-plugin-solidity and solhint use, loaded as CommonJS.
const parser = createRequire(import.meta.url)("@solidity-parser/parser") as Parser;

/** Binary operators and what each becomes: a comparison loosened or tightened, arithmetic and bit operations swapped. */
const BINARY: Record<string, { operator: MutationOperator; to: string[] }> = {
  "<": { operator: "comparison", to: ["<="] },
  "<=": { operator: "comparison", to: ["<"] },
  ">": { operator: "comparison", to: [">="] },
  ">=": { operator: "comparison", to: [">"] },
  "==": { operator: "comparison", to: ["!="] },
  "!=": { operator: "comparison", to: ["=="] },
  "&&": { operator: "logical", to: ["||"] },
  "||": { operator: "logical", to: ["&&"] },
  "+": { operator: "arithmetic", to: ["-"] },
  "-": { operator: "arithmetic", to: ["+"] },
  "*": { operator: "arithmetic", to: ["/"] },
  "/": { operator: "arithmetic", to: ["*"] },
  "%": { operator: "arithmetic", to: ["/"] },
  "<<": { operator: "arithmetic", to: [">>"] },
  ">>": { operator: "arithmetic", to: ["<<"] },
  "&": { operator: "arithmetic", to: ["|"] },
  "|": { operator: "arithmetic", to: ["&"] },
  "+=": { operator: "arithmetic", to: ["-="] },
  "-=": { operator: "arithmetic", to: ["+="] },
  "|=": { operator: "arithmetic", to: ["&="] },
};

/**
 * The mutants of a contract's source, from its syntax tree: comparisons loosened or tightened (`<` to `<=` …, `==` to
 * `!=`), `&&`/`||` swapped, arithmetic and bit operators swapped, a division rounded up, a negation dropped, a
 * revert condition or `require` removed, a function's modifier removed, a state write or an `emit` removed, two
 * arguments of a call swapped, a boolean literal flipped. Inline assembly is left alone. Sorted by position.
 * @example generateMutants(readFileSync("contracts/PaymentEscrow.sol", "utf8"), "PaymentEscrow.sol")
 */
export function generateMutants(source: string, file: string): Mutant[] {
  const ast = parser.parse(source, { loc: true, range: true });
  const mutants: Mutant[] = [];
  const text = (node: Node) => source.slice(rangeOf(node)[0], rangeOf(node)[1]);
  const add = (operator: MutationOperator, node: Node, start: number, end: number, replacement: string) => {
    const original = source.slice(start, end);
    if (original === replacement) return;
    const { line, column } = positionOf(source, start);
    const id = `${file}:${line}:${column + 1} ${operator} ${oneLine(original)} -> ${oneLine(replacement)}`;
    if (mutants.some((m) => m.id === id)) return;
    mutants.push({ id, file, line, column: column + 1, operator, original, replacement, start, end });
    void node;
  };
  const stateVariables = new Set<string>();
  parser.visit(ast, {
    StateVariableDeclaration: (node) => {
      for (const variable of node.variables as Array<{ name: string }>) stateVariables.add(variable.name);
    },
  });
  parser.visit(ast, {
    BinaryOperation: (node) => {
      const op = node.operator as string;
      const left = node.left as Node;
      const right = node.right as Node;
      const between = source.slice(rangeOf(left)[1], rangeOf(right)[0]);
      const at = rangeOf(left)[1] + between.indexOf(op);
      for (const to of BINARY[op]?.to ?? []) add(BINARY[op]?.operator ?? "arithmetic", node, at, at + op.length, to);
      if (op === "/") {
        const [start, end] = rangeOf(node);
        add("rounding", node, start, end, `((${text(left)}) + (${text(right)}) - 1) / (${text(right)})`);
      }
    },
    UnaryOperation: (node) => {
      if (node.operator !== "!" || !node.isPrefix) return;
      const [start, end] = rangeOf(node);
      add("logical", node, start, end, text(node.subExpression as Node));
    },
    BooleanLiteral: (node) => {
      const [start, end] = rangeOf(node);
      add("boolean", node, start, end, node.value ? "false" : "true");
    },
    IfStatement: (node) => {
      const body = node.trueBody as Node;
      const statements = body.type === "Block" ? (body.statements as Node[]) : [body];
      const reverts =
        statements.length === 1 &&
        (statements[0]?.type === "RevertStatement" || isCallTo(statements[0] as Node, "revert"));
      const [start, end] = rangeOf(node);
      if (reverts && !node.falseBody) add("require-removed", node, start, end, "");
      else if (!reverts) add("condition-removed", node, start, end, text(body));
    },
    ExpressionStatement: (node) => {
      // A for loop's `++i` is an expression statement without a range of its own: removing it only loops until
      // the gas runs out.
      if (!node.range) return;
      const expression = node.expression as Node;
      const [start, end] = rangeOf(node);
      if (isCallTo(expression, "require")) add("require-removed", node, start, end, "");
      else if (writesState(expression, stateVariables)) add("write-removed", node, start, end, "");
    },
    EmitStatement: (node) => {
      const [start, end] = rangeOf(node);
      add("emit-removed", node, start, end, "");
    },
    FunctionDefinition: (node) => {
      if (node.isConstructor) return;
      for (const modifier of (node.modifiers as Node[]) ?? []) {
        const [start, end] = rangeOf(modifier);
        add("modifier-removed", modifier, start, end, "");
      }
    },
    FunctionCall: (node) => {
      const args = (node.arguments as Node[]) ?? [];
      for (let i = 0; i + 1 < args.length; i += 1) {
        const a = args[i] as Node;
        const b = args[i + 1] as Node;
        if (text(a) === text(b)) continue;
        const start = rangeOf(a)[0];
        const end = rangeOf(b)[1];
        const middle = source.slice(rangeOf(a)[1], rangeOf(b)[0]);
        add("arguments-swapped", node, start, end, `${text(b)}${middle}${text(a)}`);
      }
    },
  });
  return mutants.sort((a, b) => a.start - b.start || a.id.localeCompare(b.id));
}

/** `source` with `mutant` applied. */
export function applyMutant(source: string, mutant: Mutant): string {
  return source.slice(0, mutant.start) + mutant.replacement + source.slice(mutant.end);
}

/** A node's [start, end) in the source (the parser's range ends on the last character). */
function rangeOf(node: Node): Range {
  const range = node.range as Range;
  return [range[0], range[1] + 1];
}

function positionOf(source: string, offset: number): { line: number; column: number } {
  const before = source.slice(0, offset);
  const line = before.split("\n").length;
  return { line, column: offset - (before.lastIndexOf("\n") + 1) };
}

function isCallTo(node: Node, name: string): boolean {
  const callee = node.type === "FunctionCall" ? (node.expression as Node) : undefined;
  return callee?.type === "Identifier" && callee.name === name;
}

/** Whether an expression assigns to (or deletes, increments) a state variable, directly or through an index or field. */
function writesState(expression: Node, stateVariables: Set<string>): boolean {
  let target: Node | undefined;
  if (expression.type === "BinaryOperation" && /^[-+*/|&^]?=$|^<<=$|^>>=$/.test(expression.operator as string)) {
    target = expression.left as Node;
  } else if (expression.type === "UnaryOperation" && ["++", "--", "delete"].includes(expression.operator as string)) {
    target = expression.subExpression as Node;
  }
  while (target && (target.type === "IndexAccess" || target.type === "MemberAccess")) {
    target = (target.type === "IndexAccess" ? target.base : target.expression) as Node;
  }
  return target?.type === "Identifier" && stateVariables.has(target.name as string);
}

function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat === "" ? "(removed)" : flat.length > 60 ? `${flat.slice(0, 57)}...` : flat;
}
