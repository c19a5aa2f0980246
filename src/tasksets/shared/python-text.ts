/**
 * Python `str` semantics that rewards depend on. The reference tasksets call `.strip()` and
 * `[::-1]`; JS `trim()` and UTF-16 reversal differ from them on edge cases (JS trims U+FEFF
 * but not U+001C–U+001F or U+0085; UTF-16 reversal splits astral characters), and a reward
 * that differs on edge cases is a different reward.
 */

/** The characters for which Python's `str.isspace()` is true. */
const PY_WHITESPACE =
  "\t\n\u000b\u000c\r\u001c\u001d\u001e\u001f \u0085\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000";
const STRIP_RE = new RegExp(`^[${PY_WHITESPACE}]+|[${PY_WHITESPACE}]+$`, "gu");

/** Python `s.strip()` with no arguments. */
export function pyStrip(s: string): string {
  return s.replace(STRIP_RE, "");
}

/** Python `s[::-1]`: reversal by code point (a ZWJ emoji sequence comes out scrambled, as in Python). */
export function reverseCodePoints(s: string): string {
  return Array.from(s).reverse().join("");
}

/** Python `len(s)`. */
export function pyLen(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}
