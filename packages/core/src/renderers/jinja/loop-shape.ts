/**
 * What one `for` loop body of a chat template can read and write, from its syntax tree alone:
 * the memo in `loop-memo.ts` may replay an iteration only when everything the body can
 * observe is the same as when it was recorded, so this must over-approximate, never miss.
 *
 * In `@huggingface/jinja` a body reads state only by evaluating an `Identifier` (every other
 * name in the tree — member properties, filter and test names, keyword names, assignees — is
 * not a lookup), and writes state only by `set` (into the loop's own scope, or an attribute of
 * a namespace object). Bodies that could do more are refused (null): macros and call blocks
 * (their bodies read the caller's scope), `break`/`continue` (they drop output mid-iteration),
 * `namespace(...)` (a fresh mutable object a snapshot could not copy), namespace attributes set
 * through anything but a plain name, and node types this module does not know.
 */
import { getOrCompute } from "../../memo.ts";

/** The syntax-tree node shape this module walks (fields per node type, as in the library). */
export type Node = { type: string } & Record<string, unknown>;

export interface LoopShape {
  /** Names the body may look up (loop variable and `loop` excluded). */
  reads: string[];
  /** Fields of `loop` the body may read; "all" when `loop` is used other than as `loop.NAME`. */
  loopFields: string[] | "all";
  /** Names of namespace objects whose attributes the body may set. */
  namespaces: string[];
}

const shapes = new WeakMap<object, LoopShape | null>();

/** The loop's shape, or null when its body must always be evaluated (see above). Cached per node. */
export function loopShape(node: Node): LoopShape | null {
  return getOrCompute(shapes, node, computeShape);
}

class Refused extends Error {}

/** Expression node types whose children are all sub-expressions, by the fields holding them. */
const EXPR_CHILDREN = new Map<string, readonly string[]>([
  ["TestExpression", ["operand"]],
  ["KeywordArgumentExpression", ["value"]],
  ["SpreadExpression", ["argument"]],
  ["KeywordSpreadExpression", ["argument"]],
  ["UnaryExpression", ["argument"]],
  ["BinaryExpression", ["left", "right"]],
  ["Ternary", ["condition", "trueExpr", "falseExpr"]],
  ["SelectExpression", ["lhs", "test"]],
  ["SliceExpression", ["start", "stop", "step"]],
  ["StringLiteral", []],
  ["IntegerLiteral", []],
  ["FloatLiteral", []],
]);

/**
 * Statement node types that are only walked, by the fields holding their parts (expressions,
 * blocks of statements, filters); the order does not matter, the walk only collects. A nested
 * `For` writes its own variable into its own scope (reading it is harmless to over-count), and its
 * `loop` is its own, but counting it here only over-approximates.
 */
const STATEMENT_PARTS = new Map<
  string,
  { expr?: readonly string[]; block?: readonly string[]; filter?: readonly string[] }
>([
  ["If", { expr: ["test"], block: ["body", "alternate"] }],
  ["For", { expr: ["iterable"], block: ["body", "defaultBlock"] }],
  ["FilterStatement", { filter: ["filter"], block: ["body"] }],
]);

function computeShape(node: Node): LoopShape | null {
  const loopvar = node.loopvar as Node;
  if (loopvar?.type !== "Identifier" || (node.iterable as Node)?.type === "SelectExpression") return null;
  const reads = new Set<string>();
  const fields = new Set<string>();
  let allFields = false;
  const namespaces = new Set<string>();
  const assigned = new Set<string>();

  const expr = (n: unknown): void => {
    if (n == null) return;
    const e = n as Node;
    switch (e.type) {
      case "Identifier":
        if (e.value === "loop") allFields = true;
        else reads.add(e.value as string);
        return;
      case "MemberExpression": {
        const obj = e.object as Node;
        const prop = e.property as Node;
        const name = !e.computed && prop.type === "Identifier" ? (prop.value as string) : null;
        const literal = e.computed && prop.type === "StringLiteral" ? (prop.value as string) : null;
        if (obj.type === "Identifier" && obj.value === "loop" && (name ?? literal) !== null) {
          fields.add((name ?? literal)!);
          return;
        }
        expr(obj);
        if (e.computed) expr(prop);
        return;
      }
      case "CallExpression":
        expr(e.callee);
        for (const a of e.args as unknown[]) expr(a);
        return;
      case "FilterExpression":
        expr(e.operand);
        filter(e.filter);
        return;
      case "ArrayLiteral":
      case "TupleLiteral":
        for (const x of e.value as unknown[]) expr(x);
        return;
      case "ObjectLiteral":
        for (const [k, v] of e.value as Map<unknown, unknown>) {
          expr(k);
          expr(v);
        }
        return;
      default: {
        const children = EXPR_CHILDREN.get(e.type);
        if (!children) throw new Refused(e.type);
        for (const field of children) expr(e[field]);
        return;
      }
    }
  };
  const filter = (f: unknown): void => {
    const n = f as Node;
    if (n.type === "CallExpression") for (const a of n.args as unknown[]) expr(a);
    else if (n.type !== "Identifier") throw new Refused(n.type);
  };
  const block = (statements: unknown): void => {
    for (const s of statements as Node[]) statement(s);
  };
  const walk = { expr, block, filter };
  const statement = (s: Node): void => {
    const parts = STATEMENT_PARTS.get(s.type);
    if (parts) {
      for (const as of ["expr", "block", "filter"] as const) for (const f of parts[as] ?? []) walk[as](s[f]);
      return;
    }
    switch (s.type) {
      case "Set": {
        const target = s.assignee as Node;
        if (s.value) expr(s.value);
        else block(s.body);
        if (target.type === "Identifier") assigned.add(target.value as string);
        else if (target.type === "TupleLiteral") {
          for (const t of target.value as Node[]) {
            if (t.type !== "Identifier") throw new Refused("tuple assignee");
            assigned.add(t.value as string);
          }
        } else if (target.type === "MemberExpression") {
          const obj = target.object as Node;
          if (obj.type !== "Identifier") throw new Refused("namespace assignee");
          namespaces.add(obj.value as string);
          reads.add(obj.value as string);
        } else throw new Refused("assignee");
        return;
      }
      case "Comment":
        return;
      case "Macro":
      case "CallStatement":
      case "Break":
      case "Continue":
        throw new Refused(s.type);
      default:
        expr(s);
    }
  };
  try {
    block(node.body);
  } catch (e) {
    if (e instanceof Refused) return null;
    throw e;
  }
  const own = loopvar.value as string;
  if (reads.has("namespace")) return null;
  for (const ns of namespaces) if (assigned.has(ns) || ns === own) return null;
  reads.delete(own);
  return {
    reads: [...reads],
    loopFields: allFields ? "all" : [...fields],
    namespaces: [...namespaces],
  };
}

/** Every name the template assigns, defines as a macro or binds as a loop variable, anywhere. */
export function definedNames(program: unknown): Set<string> {
  const out = new Set<string>();
  const bind = (n: unknown) => {
    const t = n as Node | undefined;
    if (t?.type === "Identifier") out.add(t.value as string);
    else if (t?.type === "TupleLiteral") for (const x of t.value as unknown[]) bind(x);
  };
  const seen = new Set<unknown>();
  const walk = (n: unknown): void => {
    if (n === null || typeof n !== "object" || seen.has(n)) return;
    seen.add(n);
    if (Array.isArray(n)) {
      for (const x of n) walk(x);
      return;
    }
    if (n instanceof Map) {
      for (const [k, v] of n) {
        walk(k);
        walk(v);
      }
      return;
    }
    const node = n as Node;
    if (node.type === "Set") bind(node.assignee);
    else if (node.type === "For") bind(node.loopvar);
    else if (node.type === "Macro") bind(node.name);
    for (const v of Object.values(node)) walk(v);
  };
  walk(program);
  return out;
}

/**
 * Whether the template reads the variable `name` anywhere (an identifier other than a member
 * name: `x.tools` is not a read of `tools`; `custom_tools` is another name).
 */
export function readsVariable(program: unknown, name: string): boolean {
  const seen = new Set<unknown>();
  const walk = (n: unknown): boolean => {
    if (n === null || typeof n !== "object" || seen.has(n)) return false;
    seen.add(n);
    if (Array.isArray(n)) return n.some(walk);
    if (n instanceof Map) return [...n].some(([k, v]) => walk(k) || walk(v));
    const node = n as Node;
    if (node.type === "Identifier") return node.value === name;
    if (node.type === "MemberExpression" && !node.computed) return walk(node.object);
    return Object.values(node).some(walk);
  };
  return walk(program);
}
