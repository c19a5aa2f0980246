/**
 * Pre-tokenizers from tokenizer.json: a sequence of `Split` steps (regex or literal pattern,
 * each HF split behaviour) and `ByteLevel` (optionally with the GPT-2 regex), applied piece by
 * piece as HF does, producing [start, end) offsets into the normalized text.
 *
 * Split regexes are Oniguruma patterns, translated to JavaScript `v`-flag regexes: the Unicode
 * classes become HF's own sets (unicode-classes.ts), `\s` is Oniguruma's White_Space (it has
 * U+0085 and lacks U+FEFF, the reverse of JavaScript's), and `(?i:…)` groups (Node 20 has no
 * inline flags) become explicit case classes with Oniguruma's case folds (`'s` matches `'ſ`).
 */

import type { ClassName } from "./hf-unicode.ts";
import { caseFoldExtras, hfClassOperand, hfWhitespace } from "./unicode-classes.ts";

const CLASS_NAMES = new Set(["L", "N", "P", "S", "M", "Lu", "Ll", "Lt", "Lm", "Lo"]);
/** Characters that must be escaped inside a `v`-flag class. */
const CLASS_ESCAPE = new Set("()[]{}/-\\|&!#%,:;<=>@`~^$.*+?");

function unsupported(pattern: string, what: string): never {
  throw new Error(`pre-tokenizer regex ${JSON.stringify(pattern)}: ${what} is not supported`);
}

/** Translates an Oniguruma pattern (the subset tokenizer.json files use) to a `v`-flag source. */
export function translateOniguruma(pattern: string): string {
  let out = "";
  let i = 0;
  let caseless = 0;
  const groups: boolean[] = [];
  const escapeAt = (inClass: boolean): string => {
    const next = pattern[i + 1];
    if (next === undefined) unsupported(pattern, "a trailing backslash");
    if (next === "p" || next === "P") {
      const close = pattern.indexOf("}", i);
      const name = pattern.slice(i + 3, close);
      if (next === "P" || !CLASS_NAMES.has(name)) unsupported(pattern, `\\${next}{${name}}`);
      i = close + 1;
      return hfClassOperand(name as ClassName);
    }
    i += 2;
    if (next === "s") return inClass ? `[${hfWhitespace()}]` : `[${hfWhitespace()}]`;
    if (next === "S") {
      if (inClass) unsupported(pattern, "\\S inside a class");
      return `[^${hfWhitespace()}]`;
    }
    if (/[dDwWhH]/.test(next)) unsupported(pattern, `\\${next}`);
    if (inClass && !/[a-zA-Z0-9]/.test(next)) return CLASS_ESCAPE.has(next) ? `\\${next}` : next;
    return `\\${next}`;
  };
  while (i < pattern.length) {
    const ch = pattern[i]!;
    if (ch === "\\") {
      out += escapeAt(false);
    } else if (ch === "[") {
      out += "[";
      i++;
      if (pattern[i] === "^") {
        out += "^";
        i++;
      }
      let first = true;
      while (i < pattern.length && (pattern[i] !== "]" || first)) {
        const c = pattern[i]!;
        first = false;
        if (c === "\\") out += escapeAt(true);
        else if (c === "[") unsupported(pattern, "a nested class");
        else if (c === "-" && out.at(-1) !== "[" && out.at(-1) !== "^" && pattern[i + 1] !== "]") {
          out += "-";
          i++;
        } else {
          out += CLASS_ESCAPE.has(c) ? `\\${c}` : c;
          i += c.length;
        }
      }
      out += "]";
      i++;
    } else if (ch === "(") {
      if (pattern.startsWith("(?i:", i)) {
        groups.push(true);
        caseless++;
        out += "(?:";
        i += 4;
      } else {
        groups.push(false);
        out += "(";
        i++;
      }
    } else if (ch === ")") {
      if (groups.pop()) caseless--;
      out += ")";
      i++;
    } else if (caseless > 0 && /[a-zA-Z]/.test(ch)) {
      const extras = caseFoldExtras(ch).map((cp) => `\\u{${cp.toString(16)}}`);
      out += `[${ch.toLowerCase()}${ch.toUpperCase()}${extras.join("")}]`;
      i++;
    } else {
      const cp = pattern.codePointAt(i)!;
      const s = String.fromCodePoint(cp);
      out += s;
      i += s.length;
    }
  }
  return out;
}

/** Compiles a tokenizer.json `Split` regex for `exec` loops. */
export function compileSplitPattern(onigPattern: string): RegExp {
  return new RegExp(translateOniguruma(onigPattern), "gv");
}

export type SplitBehavior = "Isolated" | "Removed" | "MergedWithPrevious" | "MergedWithNext" | "Contiguous";

/** One pre-tokenizer step: maps a piece [s, e) of `text` to sub-pieces, pushed as pairs. */
export type PieceStep = (text: string, s: number, e: number, out: number[]) => void;

/** HF `Split`: the pattern's matches and the gaps between them, joined per `behavior`. */
export function splitStep(re: RegExp, behavior: SplitBehavior, invert: boolean): PieceStep {
  if (invert) throw new Error("Split with invert: true is not supported");
  // The patterns of every supported family tile the text (each match starts where the last one
  // ended), and a sticky twin answers "a match right here?" with `test`, which allocates no match
  // array. It tries the same alternatives at the same position as `exec` would first, so the
  // match is the same; where it fails, `exec` searches on as before.
  const sticky = new RegExp(re.source, `${re.flags.replace("g", "")}y`);
  // [start, end, isMatch] runs covering the piece; reused (a step runs synchronously).
  const runs: number[] = [];
  return (text, s, e, out) => {
    const sub = s === 0 && e === text.length ? text : text.slice(s, e);
    runs.length = 0;
    let last = 0;
    let pos = 0;
    while (pos <= sub.length) {
      let ms = pos;
      let me = pos;
      sticky.lastIndex = pos;
      if (pos < sub.length && sticky.test(sub)) me = sticky.lastIndex;
      if (me === pos) {
        re.lastIndex = pos;
        const m = re.exec(sub);
        if (m === null) break;
        ms = m.index;
        me = ms + m[0].length;
        if (me === ms) {
          // An empty match: search on from the next position, as an exec loop does.
          pos = ms + 1;
          continue;
        }
      }
      if (ms > last) runs.push(last, ms, 0);
      runs.push(ms, me, 1);
      last = me;
      pos = me;
    }
    if (last < sub.length) runs.push(last, sub.length, 0);
    emitRuns(runs, behavior, s, out);
  };
}

function emitRuns(runs: number[], behavior: SplitBehavior, base: number, out: number[]): void {
  let pending = -1; // start of a piece still open (MergedWith*, Contiguous)
  let pendingEnd = -1;
  for (let r = 0; r < runs.length; r += 3) {
    const a = runs[r]! + base;
    const b = runs[r + 1]! + base;
    const isMatch = runs[r + 2] === 1;
    switch (behavior) {
      case "Isolated":
        out.push(a, b);
        break;
      case "Removed":
        if (!isMatch) out.push(a, b);
        break;
      case "MergedWithPrevious":
        if (isMatch) {
          out.push(pending >= 0 ? pending : a, b);
          pending = -1;
        } else {
          if (pending >= 0) out.push(pending, a);
          pending = a;
        }
        break;
      case "MergedWithNext":
        if (isMatch) {
          if (pending >= 0) out.push(pending, a);
          pending = a;
        } else {
          out.push(pending >= 0 ? pending : a, b);
          pending = -1;
        }
        break;
      case "Contiguous":
        if (isMatch) {
          if (pending < 0) pending = a;
          pendingEnd = b;
        } else {
          if (pending >= 0) out.push(pending, pendingEnd);
          pending = -1;
          out.push(a, b);
        }
        break;
    }
  }
  const end = behavior === "Contiguous" ? pendingEnd : runs.length ? runs[runs.length - 2]! + base : 0;
  if (pending >= 0 && end > pending) out.push(pending, end);
}

/** The GPT-2 pattern HF's `ByteLevel` pre-tokenizer splits with when `use_regex` is true. */
export const GPT2_PATTERN =
  "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+";

/** Runs the steps over `text`, each on every piece the previous produced. */
export function runSteps(steps: readonly PieceStep[], text: string, out: number[]): void {
  out.length = 0;
  out.push(0, text.length);
  const tmp = stepScratch;
  for (const step of steps) {
    tmp.length = 0;
    for (let p = 0; p < out.length; p += 2) if (out[p + 1]! > out[p]!) step(text, out[p]!, out[p + 1]!, tmp);
    out.length = tmp.length;
    for (let k = 0; k < tmp.length; k++) out[k] = tmp[k]!;
  }
  tmp.length = 0;
}

/** One step's output before it replaces the pieces (runs are synchronous, never nested). */
const stepScratch: number[] = [];
