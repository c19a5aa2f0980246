/**
 * The pre-tokenizer split (HF `Split` with `Isolated` behaviour): the regex from tokenizer.json,
 * translated from Oniguruma to JavaScript.
 *
 * Why a translation and not the pattern as-is: Oniguruma's `\s` is Unicode White_Space (it
 * includes U+0085 and excludes U+FEFF), JavaScript's `\s` is the reverse on both, and JavaScript
 * (Node 20) has no inline `(?i:…)` groups. Getting these wrong changes ids on rare input.
 */

/** Unicode White_Space, which is what Oniguruma's `\s` means in Unicode mode. */
const WS = "\\t-\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000";

/** Expands `(?i:…)` groups into explicit case classes (ASCII letters only, as used by BPE configs). */
function expandCaseInsensitive(pattern: string): string {
  return pattern.replace(/\(\?i:((?:[^()\\]|\\.)*)\)/g, (_m, body: string) => {
    const expanded = body.replace(/\\.|[A-Za-z]/g, (ch) =>
      ch.length === 1 ? `[${ch.toLowerCase()}${ch.toUpperCase()}]` : ch,
    );
    return `(?:${expanded})`;
  });
}

/** Rewrites `\s`/`\S` (inside and outside classes) to Oniguruma's White_Space set. */
function rewriteWhitespace(pattern: string): string {
  let out = "";
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i];
    if (ch === "\\") {
      const next = pattern[i + 1];
      if (next === "s") out += inClass ? WS : `[${WS}]`;
      else if (next === "S") {
        if (inClass) throw new Error("pretokenize: \\S inside a character class is not supported");
        out += `[^${WS}]`;
      } else out += ch + next;
      i++;
      continue;
    }
    if (ch === "[" && !inClass) inClass = true;
    else if (ch === "]" && inClass) inClass = false;
    out += ch;
  }
  return out;
}

/** Compiles a tokenizer.json `Split` regex for use with `matchAll`. */
export function compileSplitPattern(onigPattern: string): RegExp {
  return new RegExp(rewriteWhitespace(expandCaseInsensitive(onigPattern)), "gu");
}

/**
 * Splits text into pre-tokens (Isolated: matches and the gaps between them are both pieces).
 * Returns [start, end) UTF-16 offsets so callers can attribute tokens without copying.
 */
export function splitPieces(re: RegExp, text: string, out: number[]): void {
  re.lastIndex = 0;
  let last = 0;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    const start = m.index;
    const end = start + m[0].length;
    if (end === start) {
      re.lastIndex++;
      continue;
    }
    if (start > last) out.push(last, start);
    out.push(start, end);
    last = end;
  }
  if (last < text.length) out.push(last, text.length);
}
