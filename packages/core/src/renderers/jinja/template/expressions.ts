/**
 * Expressions of a `@huggingface/jinja` syntax tree compiled to closures over plain values
 * (`values.ts`): each node is looked at once, when the template is compiled, instead of on every
 * evaluation, and no value is wrapped. A node type, filter or test this module does not
 * implement throws `Unsupported` at compile time, naming it.
 */
import { applyFilter, applyTest, BARE_FILTERS, CALLED_FILTERS, TESTS } from "./filters.ts";
import { callMethod, member } from "./methods.ts";
import { binary, sliced, unary } from "./operators.ts";
import type { Scope } from "./scope.ts";
import { Fn, float, isDict, TUPLES, truthy, typeName, Unsupported } from "./values.ts";

export type Node = { type: string } & Record<string, unknown>;
export type Expr = (s: Scope) => unknown;
type Args = (s: Scope) => [unknown[], Map<string, unknown> | null];

/** Global names whose value never changes unless the template assigns them (`definedNames`). */
const CONSTANTS: Record<string, unknown> = {
  true: true,
  false: false,
  none: null,
  True: true,
  False: false,
  None: null,
};

/** An integer-like key would reorder in a plain object (a Map keeps insertion order). */
const INDEX_KEY = /^(0|[1-9]\d*)$/;

export function compileExpr(n: Node | undefined | null, defined: ReadonlySet<string>): Expr {
  if (!n) return () => undefined;
  const sub = (x: unknown) => compileExpr(x as Node, defined);
  switch (n.type) {
    case "StringLiteral":
    case "IntegerLiteral": {
      const v = n.value;
      return () => v;
    }
    case "FloatLiteral": {
      const v = n.value as number;
      return () => float(v);
    }
    case "Identifier": {
      const name = n.value as string;
      if (Object.hasOwn(CONSTANTS, name) && !defined.has(name)) {
        const v = CONSTANTS[name];
        return () => v;
      }
      return (s) => s.lookup(name);
    }
    case "ArrayLiteral":
    case "TupleLiteral": {
      const items = (n.value as Node[]).map(sub);
      const tuple = n.type === "TupleLiteral";
      return (s) => {
        const out = items.map((f) => f(s));
        if (tuple) TUPLES.add(out);
        return out;
      };
    }
    case "ObjectLiteral": {
      const entries = [...(n.value as Map<Node, Node>)].map(([k, v]) => [sub(k), sub(v)] as const);
      return (s) => {
        const out: Record<string, unknown> = Object.create(null);
        for (const [k, v] of entries) {
          const key = k(s);
          if (typeof key !== "string") throw new Error(`Object keys must be strings: got ${typeName(key)}`);
          if (INDEX_KEY.test(key)) throw new Unsupported("an integer-like dict key");
          out[key] = v(s);
        }
        return out;
      };
    }
    case "MemberExpression":
      return memberExpr(n, sub);
    case "CallExpression":
      return callExpr(n, sub, defined);
    case "UnaryExpression": {
      const op = (n.operator as { value: string }).value;
      const arg = sub(n.argument);
      if (op === "not") return (s) => !truthy(arg(s));
      return (s) => unary(op, arg(s));
    }
    case "BinaryExpression": {
      const op = (n.operator as { value: string }).value;
      const l = sub(n.left);
      const r = sub(n.right);
      if (op === "and")
        return (s) => {
          const a = l(s);
          return truthy(a) ? r(s) : a;
        };
      if (op === "or")
        return (s) => {
          const a = l(s);
          return truthy(a) ? a : r(s);
        };
      // The common cases on strings first; everything else by the library's rules (binary()).
      if (op === "==")
        return (s) => {
          const a = l(s);
          const b = r(s);
          return typeof a === "string" && typeof b === "string" ? a === b : binary(op, a, b);
        };
      if (op === "!=")
        return (s) => {
          const a = l(s);
          const b = r(s);
          return typeof a === "string" && typeof b === "string" ? a !== b : binary(op, a, b);
        };
      if (op === "+")
        return (s) => {
          const a = l(s);
          const b = r(s);
          return typeof a === "string" && typeof b === "string" ? a + b : binary(op, a, b);
        };
      return (s) => binary(op, l(s), r(s));
    }
    case "FilterExpression": {
      const operand = sub(n.operand);
      return filterExpr(n.filter as Node, sub, (s) => operand(s));
    }
    case "TestExpression": {
      const name = (n.test as Node).value as string;
      if (!TESTS.has(name)) throw new Unsupported(`test ${name}`);
      const operand = sub(n.operand);
      const negate = n.negate === true;
      return (s) => applyTest(name, operand(s)) !== negate;
    }
    case "Ternary": {
      const c = sub(n.condition);
      const t = sub(n.trueExpr);
      const f = sub(n.falseExpr);
      return (s) => (truthy(c(s)) ? t(s) : f(s));
    }
    case "SelectExpression": {
      const lhs = sub(n.lhs);
      const test = sub(n.test);
      return (s) => (truthy(test(s)) ? lhs(s) : undefined);
    }
    default:
      throw new Unsupported(`expression ${n.type}`);
  }
}

function memberExpr(n: Node, sub: (x: unknown) => Expr): Expr {
  const obj = sub(n.object);
  const prop = n.property as Node;
  if (n.computed && prop.type === "SliceExpression") {
    const start = sub(prop.start);
    const stop = sub(prop.stop);
    const step = sub(prop.step);
    return (s) => {
      const o = obj(s);
      return sliced(o, start(s), stop(s), step(s));
    };
  }
  if (n.computed) {
    const key = sub(prop);
    return (s) => {
      const o = obj(s);
      return member(o, key(s));
    };
  }
  const key = prop.value;
  if (prop.type !== "Identifier" && prop.type !== "IntegerLiteral")
    throw new Unsupported(`member ${prop.type}`);
  return (s) => member(obj(s), key);
}

/** Positional arguments (spreads expanded), then keyword ones, in the library's order. */
export function compileArgs(args: Node[], sub: (x: unknown) => Expr): Args {
  const pos: [Expr, boolean][] = [];
  const kw: [string | null, Expr][] = [];
  for (const a of args) {
    if (a.type === "KeywordArgumentExpression") kw.push([(a.key as Node).value as string, sub(a.value)]);
    else if (a.type === "KeywordSpreadExpression") kw.push([null, sub(a.argument)]);
    else if (a.type === "SpreadExpression") pos.push([sub(a.argument), true]);
    else pos.push([sub(a), false]);
  }
  return (s) => {
    const out: unknown[] = [];
    for (const [f, spread] of pos) {
      const v = f(s);
      if (!spread) out.push(v);
      else if (Array.isArray(v)) out.push(...v);
      else throw new Error(`Cannot unpack non-iterable type: ${typeName(v)}`);
    }
    if (kw.length === 0) return [out, null];
    const map = new Map<string, unknown>();
    const add = (k: string, v: unknown) => {
      if (map.has(k)) throw new Error(`Got multiple values for keyword argument '${k}'`);
      map.set(k, v);
    };
    for (const [k, f] of kw) {
      const v = f(s);
      if (k !== null) add(k, v);
      else if (isDict(v)) for (const [key, x] of Object.entries(v)) add(key, x);
      else throw new Error(`Argument after ** must be a mapping, not ${typeName(v)}`);
    }
    return [out, map.size > 0 ? map : null];
  };
}

function callExpr(n: Node, sub: (x: unknown) => Expr, _defined: ReadonlySet<string>): Expr {
  const args = compileArgs(n.args as Node[], sub);
  const callee = n.callee as Node;
  const prop = callee.property as Node | undefined;
  if (callee.type === "MemberExpression" && !callee.computed && prop?.type === "Identifier") {
    // `x.method(...)`: called directly, without a bound function made for the occasion.
    const obj = sub(callee.object);
    const name = prop.value as string;
    return (s) => {
      const [a, kw] = args(s);
      return callMethod(obj(s), name, a, kw);
    };
  }
  const fn = sub(callee);
  return (s) => {
    const [a, kw] = args(s);
    const f = fn(s);
    if (!(f instanceof Fn))
      throw new Error(`Cannot call something that is not a function: got ${typeName(f)}`);
    return f.call(a, kw, s);
  };
}

/** `operand | filter` (also the `{% filter %}` statement's filter). */
export function filterExpr(filter: Node, sub: (x: unknown) => Expr, operand: Expr): Expr {
  if (filter.type === "Identifier") {
    const name = filter.value as string;
    if (!BARE_FILTERS.has(name)) throw new Unsupported(`filter ${name}`);
    return (s) => applyFilter(name, operand(s), null, null);
  }
  const callee = filter.callee as Node | undefined;
  if (filter.type !== "CallExpression" || callee?.type !== "Identifier") throw new Unsupported("filter form");
  const name = callee.value as string;
  if (!CALLED_FILTERS.has(name)) throw new Unsupported(`filter ${name}(...)`);
  const args = compileArgs(filter.args as Node[], sub);
  return (s) => {
    const v = operand(s);
    const [a, kw] = args(s);
    return applyFilter(name, v, a, kw);
  };
}
