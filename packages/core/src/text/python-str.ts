/**
 * Python `str.strip` family. Python's whitespace set differs from JavaScript's `trim`
 * (Python includes U+001C–U+001F and U+0085, excludes U+FEFF), and parse results must match
 * the Python renderer byte for byte.
 */

const PY_WS = new Set([
  0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x1c, 0x1d, 0x1e, 0x1f, 0x20, 0x85, 0xa0, 0x1680, 0x2000, 0x2001, 0x2002,
  0x2003, 0x2004, 0x2005, 0x2006, 0x2007, 0x2008, 0x2009, 0x200a, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000,
]);

/** `s.strip()` (no argument: Unicode whitespace) or `s.strip(chars)`. */
export function pyStrip(s: string, chars?: string): string {
  return pyRstrip(pyLstrip(s, chars), chars);
}

export function pyLstrip(s: string, chars?: string): string {
  let i = 0;
  while (i < s.length && isStripped(s.charCodeAt(i), chars)) i++;
  return i === 0 ? s : s.slice(i);
}

export function pyRstrip(s: string, chars?: string): string {
  let j = s.length;
  while (j > 0 && isStripped(s.charCodeAt(j - 1), chars)) j--;
  return j === s.length ? s : s.slice(0, j);
}

function isStripped(code: number, chars?: string): boolean {
  return chars === undefined ? PY_WS.has(code) : chars.includes(String.fromCharCode(code));
}

/** Python `s[::-1]`: reversal by code point (a ZWJ emoji sequence comes out scrambled, as in Python). */
export function reverseCodePoints(s: string): string {
  return Array.from(s).reverse().join("");
}

/** Python `len(s)`: code points, not UTF-16 units. */
export function pyLen(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

/** Python `str.isspace()` for one code unit (every Python whitespace character is in the BMP). */
export function isPyWhitespace(code: number): boolean {
  return PY_WS.has(code);
}

/** Python `s.split(sep=None, maxsplit=-1)`: runs of Python whitespace separate, ends are dropped. */
export function pySplit(s: string, sep: string | null = null, maxsplit = -1): string[] {
  if (sep !== null) {
    if (sep === "") throw new Error("empty separator");
    const out = s.split(sep);
    if (maxsplit >= 0 && out.length > maxsplit + 1) out.push(out.splice(maxsplit).join(sep));
    return out;
  }
  const out: string[] = [];
  let i = 0;
  const n = s.length;
  while (i < n) {
    while (i < n && PY_WS.has(s.charCodeAt(i))) i++;
    if (i >= n) break;
    if (maxsplit >= 0 && out.length >= maxsplit) {
      out.push(pyRstrip(s.slice(i)));
      break;
    }
    let j = i;
    while (j < n && !PY_WS.has(s.charCodeAt(j))) j++;
    out.push(s.slice(i, j));
    i = j;
  }
  return out;
}

// Python's case predicates: a character is cased when it has a case (Lu, Ll, Lt and the
// Other_Lowercase/Other_Uppercase letters), which JavaScript calls `\p{Cased}`.
const CASED = /\p{Cased}/u;
const UPPER_OR_TITLE = /[\p{Lu}\p{Lt}]/u;
const LOWER = /\p{Ll}/u;

/** Titlecase letters whose title form is not their upper form (the Latin digraphs). */
const TITLE: Record<string, string> = {
  "\u01c4": "\u01c5",
  "\u01c5": "\u01c5",
  "\u01c6": "\u01c5",
  "\u01c7": "\u01c8",
  "\u01c8": "\u01c8",
  "\u01c9": "\u01c8",
  "\u01ca": "\u01cb",
  "\u01cb": "\u01cb",
  "\u01cc": "\u01cb",
  "\u01f1": "\u01f2",
  "\u01f2": "\u01f2",
  "\u01f3": "\u01f2",
};

/** One character's Python titlecase form (`'ß'` → `'Ss'`, `'ﬁ'` → `'Fi'`, `'ǆ'` → `'ǅ'`). */
function titleChar(c: string): string {
  const t = TITLE[c];
  if (t !== undefined) return t;
  const up = c.toUpperCase();
  if (up.length <= c.length) return up;
  const [first, ...rest] = Array.from(up);
  return first + rest.join("").toLowerCase();
}

/** Python `str.title()`: a cased character after a cased one is lowered, otherwise titlecased. */
export function pyTitle(s: string): string {
  let out = "";
  let prevCased = false;
  const chars = Array.from(s);
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i]!;
    // Lowering a capital sigma needs its context (final form at a word's end), as Python does.
    out += prevCased ? (c === "\u03a3" ? finalSigma(chars, i) : c.toLowerCase()) : titleChar(c);
    prevCased = CASED.test(c);
  }
  return out;
}

const CASE_IGNORABLE = /\p{Case_Ignorable}/u;

/** Σ lowered after a cased letter: `ς` unless a cased letter follows (case-ignorables skipped). */
function finalSigma(chars: readonly string[], i: number): string {
  let j = i + 1;
  while (j < chars.length && CASE_IGNORABLE.test(chars[j]!)) j++;
  return j < chars.length && CASED.test(chars[j]!) ? "\u03c3" : "\u03c2";
}

/** Python `str.capitalize()` (3.8+): the first character titlecased, the rest lowered. */
export function pyCapitalize(s: string): string {
  const first = s.codePointAt(0);
  if (first === undefined) return s;
  const head = String.fromCodePoint(first);
  return titleChar(head) + s.slice(head.length).toLowerCase();
}

/** Python `str.islower()`: some cased character and no uppercase or titlecase one. */
export function pyIsLower(s: string): boolean {
  return CASED.test(s) && !UPPER_OR_TITLE.test(s) && s === s.toLowerCase();
}

/** Python `str.isupper()`: some cased character and no lowercase or titlecase one. */
export function pyIsUpper(s: string): boolean {
  return CASED.test(s) && !LOWER.test(s) && !/\p{Lt}/u.test(s) && s === s.toUpperCase();
}

// Python's printable characters: everything but the Other and Separator categories (space
// excepted). repr() escapes the rest.
const NON_PRINTABLE = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}]/u;

/** Python `repr(s)`: quotes chosen as Python chooses them, non-printables escaped. */
export function pyStrRepr(s: string): string {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = quote;
  for (const c of s) {
    const code = c.codePointAt(0)!;
    if (c === quote || c === "\\") out += `\\${c}`;
    else if (c === "\n") out += "\\n";
    else if (c === "\r") out += "\\r";
    else if (c === "\t") out += "\\t";
    else if (code < 0x20 || code === 0x7f) out += `\\x${code.toString(16).padStart(2, "0")}`;
    else if (code < 0x7f || c === " " || !NON_PRINTABLE.test(c)) out += c;
    else if (code <= 0xff) out += `\\x${code.toString(16).padStart(2, "0")}`;
    else if (code <= 0xffff) out += `\\u${code.toString(16).padStart(4, "0")}`;
    else out += `\\U${code.toString(16).padStart(8, "0")}`;
  }
  return out + quote;
}

/** Python's whitespace as a regular-expression class body (Python's `re` `\s`; JavaScript's differs). */
const PY_WS_CLASS =
  "\\t\\n\\v\\f\\r\\x1c-\\x20\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000";
const WORD_BEGINNING = new RegExp(`([-${PY_WS_CLASS}({[<]+)`, "u");

/** jinja2's `title` filter: each piece after `-`, whitespace or an opening bracket starts upper. */
export function jinjaTitle(s: string): string {
  return s
    .split(WORD_BEGINNING)
    .filter((item) => item.length > 0)
    .map((item) => {
      const head = String.fromCodePoint(item.codePointAt(0)!);
      return head.toUpperCase() + item.slice(head.length).toLowerCase();
    })
    .join("");
}
