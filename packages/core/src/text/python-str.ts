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
