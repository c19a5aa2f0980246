/**
 * The `calculate` tool's arithmetic: a small recursive-descent evaluator, because model-written
 * expressions must never reach `eval`. Grammar (usual precedence, `^` right-associative):
 *   expr := term (("+" | "-") term)*      term := unary (("*" | "/" | "%") unary)*
 *   unary := "-" unary | "+" unary | power   power := atom ("^" unary)?
 *   atom := number | "(" expr ")"
 * `**`, `×`, `÷` and `−` are accepted as their ASCII meanings.
 */

const MAX_LENGTH = 500;

export class ExpressionError extends Error {}

type Token = { kind: "num"; value: number } | { kind: "op"; value: string };

function tokenize(src: string): Token[] {
  const s = src.replaceAll("**", "^").replaceAll("×", "*").replaceAll("÷", "/").replaceAll("−", "-");
  const tokens: Token[] = [];
  const re = /\s*(?:(\d+(?:\.\d*)?(?:[eE][-+]?\d+)?|\.\d+(?:[eE][-+]?\d+)?)|([-+*/%^()]))/y;
  let pos = 0;
  while (pos < s.length) {
    if (/^\s*$/.test(s.slice(pos))) break;
    re.lastIndex = pos;
    const m = re.exec(s);
    if (!m)
      throw new ExpressionError(`unexpected character at ${pos}: ${JSON.stringify(s.slice(pos).trim()[0])}`);
    if (m[1] !== undefined) tokens.push({ kind: "num", value: Number(m[1]) });
    else tokens.push({ kind: "op", value: m[2]! });
    pos = re.lastIndex;
  }
  return tokens;
}

export function evaluate(src: string): number {
  if (src.length > MAX_LENGTH) throw new ExpressionError(`expression longer than ${MAX_LENGTH} characters`);
  const tokens = tokenize(src);
  let i = 0;
  const peek = () => tokens[i];
  const isOp = (v: string) => peek()?.kind === "op" && peek()!.value === v;

  const expr = (): number => {
    let v = term();
    while (isOp("+") || isOp("-")) v = tokens[i++]!.value === "+" ? v + term() : v - term();
    return v;
  };
  const term = (): number => {
    let v = unary();
    while (isOp("*") || isOp("/") || isOp("%")) {
      const op = tokens[i++]!.value;
      const r = unary();
      if ((op === "/" || op === "%") && r === 0) throw new ExpressionError("division by zero");
      v = op === "*" ? v * r : op === "/" ? v / r : v % r;
    }
    return v;
  };
  const unary = (): number => {
    if (isOp("-")) {
      i++;
      return -unary();
    }
    if (isOp("+")) {
      i++;
      return unary();
    }
    return power();
  };
  const power = (): number => {
    const base = atom();
    if (isOp("^")) {
      i++;
      return base ** unary();
    }
    return base;
  };
  const atom = (): number => {
    const t = tokens[i++];
    if (!t) throw new ExpressionError("unexpected end of expression");
    if (t.kind === "num") return t.value;
    if (t.value === "(") {
      const v = expr();
      if (!isOp(")")) throw new ExpressionError("missing closing parenthesis");
      i++;
      return v;
    }
    throw new ExpressionError(`unexpected ${JSON.stringify(t.value)}`);
  };

  if (tokens.length === 0) throw new ExpressionError("empty expression");
  const v = expr();
  if (i < tokens.length) throw new ExpressionError(`unexpected ${JSON.stringify(String(tokens[i]!.value))}`);
  if (!Number.isFinite(v)) throw new ExpressionError("result is not a finite number");
  return v;
}

/** How tools print numbers: 12 significant digits, no float noise (0.1 + 0.2 → 0.3). */
export function formatNumber(v: number): string {
  return String(Number(v.toPrecision(12)));
}
