/**
 * A chat template compiled to closures: `@huggingface/jinja`'s parser gives the syntax tree,
 * this module turns each statement into a function from a scope to its output text, with the
 * semantics of the library's interpreter as envroll patches it (`../python-semantics.ts`: a
 * null expression prints `None`; `strip(chars)` honours `chars`). It exists because the
 * interpreter wraps every value it touches in a fresh object, which is most of a warm render's
 * cost; the differential test (test/renderers/template-evaluator.test.ts) holds the two equal.
 *
 * With `Run.messageIndex` set, each iteration of a `for` loop whose variable is one of the
 * caller's messages is prefixed by the attribution marker naming it and a loop that marked
 * one is followed by the loop-end marker — exactly where `../attribution.ts`'s tracker puts
 * them in the library's output, so the same reader turns either into message spans.
 *
 * `compileTemplate` throws `Unsupported` (naming the construct) for what it does not implement
 * — call blocks, `for ... if`, macros reading `kwargs`/`varargs`/`caller`, unknown
 * filters and tests; the renderer then uses the library for that template.
 */
import { LOOP_END, MARK, MARK_END } from "../attribution.ts";
import { compileExpr, type Expr, filterExpr, type Node } from "./expressions.ts";
import { GLOBALS } from "./globals.ts";
import { pyStr } from "./py-format.ts";
import { type Run, Scope } from "./scope.ts";
import { Fn, isDict, Namespace, TUPLES, truthy, typeName, Unsupported } from "./values.ts";

type Block = (s: Scope) => string;

const BREAK = { signal: "break" };
const CONTINUE = { signal: "continue" };

export interface CompiledTemplate {
  /** The template's text for `ctx` (plain JSON values), with `run`'s markers when it sets them. */
  render(ctx: Record<string, unknown>, run: Run): string;
}

export function compileTemplate(program: Node, defined: ReadonlySet<string>): CompiledTemplate {
  const body = new Compiler(defined).block(program.body as Node[]);
  return {
    render(ctx, run) {
      const root = new Scope(null, run);
      for (const [k, v] of Object.entries(ctx)) {
        if (typeof v === "function") throw new Unsupported(`a function variable (${k})`);
        root.vars.set(k, v);
      }
      for (const [k, v] of GLOBALS) if (!root.vars.has(k)) root.vars.set(k, v);
      return body(root);
    },
  };
}

/** Statement types whose null result prints nothing (any other null prints `None`). */
const STATEMENTS = new Set(["Set", "If", "For", "Macro", "Comment", "Break", "Continue", "FilterStatement"]);

class Compiler {
  constructor(private readonly defined: ReadonlySet<string>) {}

  private expr = (n: unknown): Expr => compileExpr(n as Node, this.defined);

  block(nodes: Node[]): Block {
    const parts = nodes.map((n) => this.part(n));
    if (parts.length === 0) return () => "";
    if (parts.length === 1) return parts[0]!;
    return (s) => {
      let out = "";
      for (let i = 0; i < parts.length; i++) out += parts[i]!(s);
      return out;
    };
  }

  private part(n: Node): Block {
    if (!STATEMENTS.has(n.type)) {
      if (n.type === "StringLiteral") {
        const text = n.value as string;
        return () => text;
      }
      const e = this.expr(n);
      return (s) => pyStr(e(s));
    }
    switch (n.type) {
      case "If": {
        const test = this.expr(n.test);
        const body = this.block(n.body as Node[]);
        const alt = this.block(n.alternate as Node[]);
        return (s) => (truthy(test(s)) ? body(s) : alt(s));
      }
      case "For":
        return this.forLoop(n);
      case "Set":
        return this.set(n);
      case "Macro":
        return this.macro(n);
      case "Comment":
        return () => "";
      case "Break":
        return () => {
          throw BREAK;
        };
      case "Continue":
        return () => {
          throw CONTINUE;
        };
      case "FilterStatement": {
        const body = this.block(n.body as Node[]);
        const apply = filterExpr(n.filter as Node, this.expr, body);
        return (s) => pyStr(apply(s));
      }
      default:
        throw new Unsupported(`statement ${n.type}`);
    }
  }

  private set(n: Node): Block {
    const value = n.value ? this.expr(n.value) : this.block(n.body as Node[]);
    const target = n.assignee as Node;
    if (target.type === "Identifier") {
      const name = target.value as string;
      return (s) => {
        s.vars.set(name, value(s));
        return "";
      };
    }
    if (target.type === "TupleLiteral") {
      const names = (target.value as Node[]).map((t) => {
        if (t.type !== "Identifier") throw new Unsupported(`set to a ${t.type}`);
        return t.value as string;
      });
      return (s) => {
        const v = value(s);
        if (!Array.isArray(v)) throw new Error(`Cannot unpack non-iterable type in set: ${typeName(v)}`);
        if (v.length !== names.length) throw new Error("Wrong number of items to unpack in set");
        for (let i = 0; i < names.length; i++) s.vars.set(names[i]!, v[i]);
        return "";
      };
    }
    if (target.type === "MemberExpression" && (target.property as Node).type === "Identifier") {
      const obj = this.expr(target.object);
      const key = (target.property as Node).value as string;
      return (s) => {
        const v = value(s);
        const ns = obj(s);
        if (!(ns instanceof Namespace)) throw new Error("cannot assign attribute on non-namespace object");
        ns.map.set(key, v);
        return "";
      };
    }
    throw new Unsupported(`set to a ${target.type}`);
  }

  private forLoop(n: Node): Block {
    const iterableNode = n.iterable as Node;
    if (iterableNode.type === "SelectExpression") throw new Unsupported("for ... if");
    const iterable = this.expr(iterableNode);
    const body = this.block(n.body as Node[]);
    const otherwise = this.block(n.defaultBlock as Node[]);
    const loopvar = n.loopvar as Node;
    const single = loopvar.type === "Identifier" ? (loopvar.value as string) : null;
    const names =
      loopvar.type === "TupleLiteral"
        ? (loopvar.value as Node[]).map((t) => {
            if (t.type !== "Identifier") throw new Unsupported(`loop variable ${t.type}`);
            return t.value as string;
          })
        : null;
    if (single === null && names === null) throw new Unsupported(`loop variable ${loopvar.type}`);
    return (outer) => {
      const scope = new Scope(outer);
      let items = iterable(scope);
      if (isDict(items)) items = Object.keys(items);
      if (!Array.isArray(items))
        throw new Error(`Expected iterable or object type in for loop: got ${typeName(items)}`);
      const list = items as unknown[];
      const n = list.length;
      const messageIndex = scope.run.messageIndex;
      let result = "";
      let none = true;
      let marked = false;
      for (let i = 0; i < n; i++) {
        const item = list[i];
        if (names && (!Array.isArray(item) || TUPLES.has(item) || item.length !== names.length))
          throw new Error(`Cannot unpack ${typeName(item)} into the loop variables`);
        scope.vars.set("loop", {
          index: i + 1,
          index0: i,
          revindex: n - i,
          revindex0: n - i - 1,
          first: i === 0,
          last: i === n - 1,
          length: n,
          previtem: i > 0 ? list[i - 1] : undefined,
          nextitem: i < n - 1 ? list[i + 1] : undefined,
        });
        if (single !== null) scope.vars.set(single, item);
        else for (let j = 0; j < names!.length; j++) scope.vars.set(names![j]!, (item as unknown[])[j]);
        let out: string;
        try {
          out = body(scope);
        } catch (e) {
          if (e === CONTINUE) continue;
          if (e === BREAK) break;
          throw e;
        }
        if (messageIndex && single !== null && out.length > 0) {
          // The loop variable as the body left it (a body may reassign it), as the tracker reads it.
          const k = messageIndex(scope.lookup(single));
          if (k >= 0) {
            out = `${MARK}${k.toString(36)}${MARK_END}${out}`;
            marked = true;
          }
        }
        result += out;
        none = false;
      }
      if (none) result += otherwise(scope);
      return marked ? result + LOOP_END : result;
    };
  }

  private macro(n: Node): Block {
    const name = (n.name as Node).value as string;
    const params = (n.args as Node[]).map((a) => {
      if (a.type === "Identifier") return { name: a.value as string, fallback: null };
      if (a.type === "KeywordArgumentExpression")
        return { name: (a.key as Node).value as string, fallback: this.expr(a.value) };
      throw new Unsupported(`macro parameter ${a.type}`);
    });
    if (readsSpecial(n.body)) throw new Unsupported("a macro reading kwargs, varargs or caller");
    const body = this.block(n.body as Node[]);
    const fn = new Fn((args, kw, caller) => {
      const scope = new Scope(caller as Scope);
      const left = kw ? new Map(kw) : null;
      const pending: [string, Expr][] = [];
      params.forEach((p, i) => {
        // Passed means present (an undefined value passed still counts, as in the library).
        let given = i < args.length;
        let v = args[i];
        if (!given && left?.has(p.name)) {
          v = left.get(p.name);
          left.delete(p.name);
          given = true;
        }
        if (!given && p.fallback) pending.push([p.name, p.fallback]);
        scope.vars.set(p.name, v);
      });
      if (left && left.size > 0) throw new Error(`macro '${name}' takes no keyword argument`);
      if (args.length > params.length) throw new Error(`macro '${name}' takes too many arguments`);
      for (const [p, f] of pending) scope.vars.set(p, f(scope));
      return body(scope);
    });
    return (s) => {
      s.vars.set(name, fn);
      return "";
    };
  }
}

/** Whether a macro body names `kwargs`, `varargs` or `caller` anywhere (those are not bound here). */
function readsSpecial(node: unknown): boolean {
  if (node === null || typeof node !== "object") return false;
  if (Array.isArray(node)) return node.some(readsSpecial);
  if (node instanceof Map) return [...node].some(([k, v]) => readsSpecial(k) || readsSpecial(v));
  const n = node as Node;
  if (n.type === "Identifier" && ["kwargs", "varargs", "caller"].includes(n.value as string)) return true;
  return Object.values(n).some(readsSpecial);
}
